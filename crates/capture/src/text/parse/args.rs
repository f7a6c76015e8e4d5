//! The arguments of one line of a text capture: its `key=value` pairs
//! and positional words ([`Args`]), lists, the `rstates=` array, and the
//! `expect` line that gives a call its recorded answer.
//!
//! In: the items the DP2 lexer split a line into (untrusted). Out: typed
//! values, or a message the caller places on the line. Never panics;
//! every key is consumed once and an unknown key is an error.

use crate::record::*;
use softhal_wire::ddi_enum::ValueKind;
use softhal_wire::names::{self, codes};
use softhal_wire::text::lexer::{Item, Val};

/// A parsed `key=value` line: the keyword, positional words, pairs.
pub(super) struct Args {
    pub(super) words: Vec<String>,
    pub(super) pairs: Vec<(String, Val)>,
}

impl Args {
    pub(super) fn from_items(items: Vec<Item>) -> Result<Args, String> {
        let mut a = Args {
            words: Vec::new(),
            pairs: Vec::new(),
        };
        for it in items {
            match it {
                Item::Word(w) => a.words.push(w),
                Item::Pair(k, v) => a.pairs.push((k.to_ascii_lowercase(), v)),
                Item::Group(_) => return Err("unexpected { ... } group".into()),
            }
        }
        Ok(a)
    }
    pub(super) fn take(&mut self, key: &str) -> Option<Val> {
        let i = self.pairs.iter().rposition(|(k, _)| k == key)?;
        let v = self.pairs.remove(i).1;
        self.pairs.retain(|(k, _)| k != key);
        Some(v)
    }
    pub(super) fn word(&mut self, key: &str) -> Result<Option<String>, String> {
        match self.take(key) {
            None => Ok(None),
            Some(Val::Word(w)) => Ok(Some(w)),
            Some(_) => Err(format!("{key}: expected a single value")),
        }
    }
    pub(super) fn parsed(
        &mut self,
        key: &str,
        f: impl Fn(&str) -> Option<u32>,
        default: u32,
    ) -> Result<u32, String> {
        match self.word(key)? {
            None => Ok(default),
            Some(w) => f(&w).ok_or_else(|| format!("{key}: cannot read {w}")),
        }
    }
    pub(super) fn num(&mut self, key: &str, default: u32) -> Result<u32, String> {
        self.parsed(key, names::parse_number, default)
    }
    pub(super) fn required(&mut self, key: &str) -> Result<u32, String> {
        match self.word(key)? {
            None => Err(format!("{key}= is required")),
            Some(w) => names::parse_number(&w).ok_or_else(|| format!("{key}: cannot read {w}")),
        }
    }
    pub(super) fn handle(&mut self) -> Result<u32, String> {
        if self.words.is_empty() {
            return Err("expected a handle".into());
        }
        let w = self.words.remove(0);
        names::parse_number(&w).ok_or_else(|| format!("cannot read handle {w}"))
    }
    pub(super) fn finish(self) -> Result<(), String> {
        if let Some(w) = self.words.first() {
            return Err(format!("unexpected word {w}"));
        }
        if let Some((k, _)) = self.pairs.first() {
            return Err(format!("unknown key {k}="));
        }
        Ok(())
    }
}

pub(super) fn list_words(v: &Val, key: &str) -> Result<Vec<String>, String> {
    let Val::List(xs) = v else {
        return Err(format!("{key}: expected a list [...]"));
    };
    xs.iter()
        .map(|x| match x {
            Val::Word(w) => Ok(w.clone()),
            _ => Err(format!("{key}: nested values are not allowed")),
        })
        .collect()
}

pub(super) fn parse_rstates(v: &Val) -> Result<Box<[u32; 256]>, String> {
    let mut a = Box::new([0u32; 256]);
    for w in list_words(v, "rstates")? {
        let (i, x) = w
            .split_once(':')
            .ok_or_else(|| format!("rstates: expected index:value, found {w}"))?;
        let i = names::parse_number(i)
            .filter(|i| *i < 256)
            .ok_or_else(|| format!("rstates: bad index in {w}"))?;
        let x = names::parse_number(x).ok_or_else(|| format!("rstates: bad value in {w}"))?;
        if let Some(slot) = a.get_mut(i as usize) {
            *slot = x;
        }
    }
    Ok(a)
}

pub(super) fn parse_answer(r: &Record, items: Vec<Item>) -> Result<Answer, String> {
    let mut a = Args::from_items(items)?;
    let mut ans = Answer {
        ddrval: a.parsed("ddrval", codes::parse_hresult, codes::D3D_OK)?,
        ..Answer::default()
    };
    match r {
        Record::DrawPrimitives2 { call, .. } => {
            ans.error_offset = a.num("error_offset", 0)?;
            ans.flags = a.parsed(
                "flags",
                |w| names::parse_value(ValueKind::Flags(&names::DP2_FLAGS), w),
                call.flags,
            )?;
            if let Some(v) = a.take("rstates") {
                ans.rstates = Some(parse_rstates(&v)?);
            }
        }
        Record::ValidateTextureStageState { .. } => ans.passes = a.num("passes", 0)?,
        Record::Submit { .. } => {
            ans.sizes = [
                a.num("command_buffer_size", 0)?,
                a.num("allocation_list_size", 0)?,
                a.num("patch_list_size", 0)?,
            ];
            ans.queued = a.num("queued", 0)?;
        }
        Record::Flip { .. } | Record::Present { .. } => {
            if let Some(w) = a.word("checksum")? {
                let h = w.strip_prefix("0x").unwrap_or(&w);
                ans.checksum =
                    u64::from_str_radix(h, 16).map_err(|_| format!("checksum: cannot read {w}"))?;
            }
        }
        _ => {}
    }
    a.finish()?;
    Ok(ans)
}
