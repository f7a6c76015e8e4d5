//! Tokens and items of the DP2 assembly language.
//!
//! In: one logical source line ([`logical_lines`] joins a line that opens
//! a shader block with the block's lines). Out: a mnemonic and a list of
//! [`Item`]s (`key=value` pairs and `{ ... }` groups, nesting allowed;
//! values are words, groups, `[ ... ]` lists, or the verbatim text of an
//! `asm{` block). Comments start with `#` or `;` (inside an `asm{` block
//! they are the shader's). Guarantee: never panics; nesting depth is
//! capped ([`MAX_DEPTH`]).

/// Deepest allowed nesting of `{}`/`[]`.
pub const MAX_DEPTH: usize = 8;

/// A value on the right of `=` or inside a list.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    /// A bare word: number, name, `A|B` flags, `hex:...`.
    Word(String),
    /// `{ items }`.
    Group(Vec<Item>),
    /// `[ values ]`.
    List(Vec<Val>),
    /// The body of an `asm{` block (shader assembly, several lines),
    /// verbatim.
    Text(String),
}

/// One item of a line or group.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// `key=value`.
    Pair(String, Val),
    /// A bare `{ ... }` group (one record).
    Group(Vec<Item>),
    /// A bare word that is not a pair.
    Word(String),
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    /// The body of an `asm{ ... }` block, verbatim.
    Text(String),
    Open(char),
    Close(char),
    Eq,
    Word(String),
}

/// The word that, followed by `{`, opens a shader block.
pub const SHADER_BLOCK: &str = "asm";

fn tokenize(line: &str) -> Result<Vec<Tok>, String> {
    let mut toks = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, toks: &mut Vec<Tok>| {
        if !word.is_empty() {
            toks.push(Tok::Word(std::mem::take(word)));
        }
    };
    let mut pos = 0;
    while let Some(c) = line.get(pos..).and_then(|r| r.chars().next()) {
        pos = pos.saturating_add(c.len_utf8());
        match c {
            '#' | ';' => break,
            '{' if word == SHADER_BLOCK => {
                word.clear();
                let rest = line.get(pos..).unwrap_or_default();
                let (text, used) = shader_block(rest)?;
                toks.push(Tok::Text(text));
                pos = pos.saturating_add(used);
            }
            // `plane[0]`: a bracket attached to a word is part of it.
            '[' if !word.is_empty() => word.push(c),
            ']' if word.contains('[') && !word.contains(']') => word.push(c),
            '{' | '[' => {
                flush(&mut word, &mut toks);
                toks.push(Tok::Open(c));
            }
            '}' | ']' => {
                flush(&mut word, &mut toks);
                toks.push(Tok::Close(c));
            }
            '=' => {
                flush(&mut word, &mut toks);
                toks.push(Tok::Eq);
            }
            ',' => flush(&mut word, &mut toks),
            c if c.is_whitespace() => flush(&mut word, &mut toks),
            c => word.push(c),
        }
    }
    flush(&mut word, &mut toks);
    Ok(toks)
}

/// The body of an `asm{` block: `rest` is what follows the `{`, which must
/// end its line; the body is every following line up to the first whose
/// first non-blank character is `}`. Returns the body and the bytes of
/// `rest` consumed, the closing `}` included.
fn shader_block(rest: &str) -> Result<(String, usize), String> {
    let missing = || format!("missing the '}}' line that ends a {SHADER_BLOCK}{{ block");
    let (first, body) = rest.split_once('\n').ok_or_else(missing)?;
    if !first.trim().is_empty() {
        return Err(format!(
            "a {SHADER_BLOCK}{{ block starts on the next line (found {})",
            first.trim()
        ));
    }
    let mut text = String::new();
    // Positions are within `rest`: they cannot overflow.
    let mut at = first.len().saturating_add(1);
    for l in body.split_inclusive('\n') {
        let t = l.trim_start();
        if let Some(after) = t.strip_prefix('}') {
            let used = at.saturating_add(l.len().saturating_sub(after.len()));
            return Ok((text, used));
        }
        text.push_str(l);
        at = at.saturating_add(l.len());
    }
    Err(missing())
}

/// Splits a source into logical lines, each with the 1-based number of its
/// first physical line. A logical line is one physical line, except where
/// a line ends (before its comment) with an `asm{` block opener: then the
/// block's lines and the line that closes it (and, if that one opens
/// another block, the next block) belong to it too. The comment of a line
/// that opens a block is dropped, so that what follows the block is not
/// read as part of it.
pub fn logical_lines(src: &str) -> Vec<(usize, String)> {
    let opener = format!("{SHADER_BLOCK}{{");
    let opens = |l: &str| {
        strip_comment(l)
            .trim_end()
            .strip_suffix(opener.as_str())
            .is_some_and(|p| !p.ends_with(|c: char| !(c.is_whitespace() || "{}[]=,".contains(c))))
    };
    let mut out = Vec::new();
    let mut lines = src.lines().zip(1usize..);
    while let Some((line, no)) = lines.next() {
        let mut logical = String::new();
        let mut cur = line;
        while opens(cur) {
            logical.push_str(strip_comment(cur));
            logical.push('\n');
            // The block's body, then its closing line.
            let mut closed = false;
            for (l, _) in lines.by_ref() {
                if l.trim_start().starts_with('}') {
                    cur = l;
                    closed = true;
                    break;
                }
                logical.push_str(l);
                logical.push('\n');
            }
            if !closed {
                cur = "";
                break;
            }
        }
        logical.push_str(cur);
        out.push((no, logical));
    }
    out
}

/// `line` without its comment (`#` or `;` to the end).
fn strip_comment(line: &str) -> &str {
    line.split(['#', ';']).next().unwrap_or_default()
}

struct Parser {
    toks: core::iter::Peekable<std::vec::IntoIter<Tok>>,
}

impl Parser {
    fn peek(&mut self) -> Option<&Tok> {
        self.toks.peek()
    }
    fn bump(&mut self) -> Option<Tok> {
        self.toks.next()
    }

    fn items_until(&mut self, close: Option<char>, depth: usize) -> Result<Vec<Item>, String> {
        if depth > MAX_DEPTH {
            return Err(format!("nesting deeper than {MAX_DEPTH}"));
        }
        let mut items = Vec::new();
        loop {
            match self.bump() {
                None => {
                    return match close {
                        None => Ok(items),
                        Some(c) => Err(format!("missing '{c}'")),
                    }
                }
                Some(Tok::Close(c)) if Some(c) == close => return Ok(items),
                Some(Tok::Close(c)) => return Err(format!("unexpected '{c}'")),
                Some(Tok::Eq) => return Err("'=' without a key".into()),
                Some(Tok::Open('{')) => {
                    // Saturating: a depth past MAX_DEPTH is rejected on entry.
                    items.push(Item::Group(
                        self.items_until(Some('}'), depth.saturating_add(1))?,
                    ))
                }
                Some(Tok::Open(_)) => return Err("a list '[...]' needs a key (key=[...])".into()),
                Some(Tok::Text(_)) => {
                    return Err(format!(
                        "a {SHADER_BLOCK}{{ block needs a key (code={SHADER_BLOCK}{{)"
                    ))
                }
                Some(Tok::Word(w)) => {
                    if self.peek() == Some(&Tok::Eq) {
                        self.bump();
                        let v = self.value(depth)?;
                        items.push(Item::Pair(w, v));
                    } else {
                        items.push(Item::Word(w));
                    }
                }
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Val, String> {
        match self.bump() {
            Some(Tok::Word(w)) => Ok(Val::Word(w)),
            Some(Tok::Text(t)) => Ok(Val::Text(t)),
            // Saturating: a depth past MAX_DEPTH is rejected.
            Some(Tok::Open('{')) => Ok(Val::Group(
                self.items_until(Some('}'), depth.saturating_add(1))?,
            )),
            Some(Tok::Open(_)) => {
                if depth.saturating_add(1) > MAX_DEPTH {
                    return Err(format!("nesting deeper than {MAX_DEPTH}"));
                }
                let mut vals = Vec::new();
                loop {
                    match self.peek() {
                        Some(Tok::Close(']')) => {
                            self.bump();
                            return Ok(Val::List(vals));
                        }
                        None => return Err("missing ']'".into()),
                        _ => vals.push(self.value(depth.saturating_add(1))?),
                    }
                }
            }
            Some(Tok::Close(c)) => Err(format!("expected a value, found '{c}'")),
            Some(Tok::Eq) => Err("expected a value, found '='".into()),
            None => Err("expected a value at the end of the line".into()),
        }
    }
}

/// Splits a line into its mnemonic and items. `Ok(None)` for a blank or
/// comment-only line. A leading `offset:` word (as printed by the
/// disassembler) is skipped.
pub fn parse_line(line: &str) -> Result<Option<(String, Vec<Item>)>, String> {
    let mut toks = tokenize(line)?;
    if let Some(Tok::Word(w)) = toks.first() {
        if w.strip_suffix(':')
            .is_some_and(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit() || c == 'x'))
        {
            toks.remove(0);
        }
    }
    let mut p = Parser {
        toks: toks.into_iter().peekable(),
    };
    let mnemonic = match p.bump() {
        None => return Ok(None),
        Some(Tok::Word(w)) => w,
        Some(_) => return Err("a line must start with a mnemonic".into()),
    };
    let items = p.items_until(None, 0)?;
    Ok(Some((mnemonic, items)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_into_items() {
        let (m, items) = parse_line("000010: RENDERSTATE { a=1 b=[1 2] c={d=3} } count=2 # x")
            .unwrap()
            .unwrap();
        assert_eq!(m, "RENDERSTATE");
        assert_eq!(items.len(), 2);
        assert!(matches!(&items[1], Item::Pair(k, Val::Word(v)) if k == "count" && v == "2"));
        assert_eq!(parse_line("   ; only a comment").unwrap(), None);
        assert!(parse_line("X { a=1").is_err());
        let (_, items) = parse_line("X { plane[0]=1.0 } l=[1 2]").unwrap().unwrap();
        assert!(
            matches!(&items[0], Item::Group(g) if matches!(&g[0], Item::Pair(k, _) if k == "plane[0]"))
        );
        assert!(matches!(&items[1], Item::Pair(_, Val::List(v)) if v.len() == 2));
        assert!(parse_line("X a=").is_err());
        let deep = format!("X {}{}", "{".repeat(20), "}".repeat(20));
        assert!(parse_line(&deep).is_err());
    }
}
