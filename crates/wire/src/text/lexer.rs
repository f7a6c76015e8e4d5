//! Tokens and items of the DP2 assembly language.
//!
//! In: one source line. Out: a mnemonic and a list of [`Item`]s
//! (`key=value` pairs and `{ ... }` groups, nesting allowed; values are
//! words, groups or `[ ... ]` lists). Comments start with `#` or `;`.
//! Guarantee: never panics; nesting depth is capped ([`MAX_DEPTH`]).

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
    Open(char),
    Close(char),
    Eq,
    Word(String),
}

fn tokenize(line: &str) -> Vec<Tok> {
    let mut toks = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, toks: &mut Vec<Tok>| {
        if !word.is_empty() {
            toks.push(Tok::Word(std::mem::take(word)));
        }
    };
    for c in line.chars() {
        match c {
            '#' | ';' => break,
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
    toks
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
    let mut toks = tokenize(line);
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
