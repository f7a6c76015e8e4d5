//! Generational handles.
//!
//! In: objects to keep (surfaces, contexts). Out: DWORD handles that name
//! them. Guarantee: a handle is valid exactly while its object lives; a
//! destroyed handle, a handle of another [`Slab`] (another driver or another
//! kind of object) or a made-up number is an error, never some other object.
//!
//! Layout of a handle (never 0, so that 0 can mean "none" in DP2 records):
//! bits 31..28 kind tag, 27..24 slab salt (per driver), 23..16 generation
//! (1..=255), 15..0 slot index + 1. When a slot's generation would wrap it
//! is retired instead of reused, so no handle value ever names two objects
//! of one slab.

use crate::error::{DeviceError, Result};
use std::sync::atomic::{AtomicU32, Ordering};

static NEXT_SALT: AtomicU32 = AtomicU32::new(1);

#[derive(Debug, Clone)]
struct Entry<T> {
    generation: u8,
    value: Option<T>,
}

/// A table of objects addressed by generational handles.
#[derive(Debug, Clone)]
pub struct Slab<T> {
    entries: Vec<Entry<T>>,
    free: Vec<u16>,
    live: usize,
    cap: usize,
    tag: u32,
    salt: u32,
    what: &'static str,
}

impl<T> Slab<T> {
    /// An empty slab of at most `cap` live objects (≤ 65535) whose handles
    /// carry `tag` (1..=15).
    pub fn new(tag: u32, cap: usize, what: &'static str) -> Self {
        let salt = NEXT_SALT.fetch_add(1, Ordering::Relaxed) & 0xF;
        Slab {
            entries: Vec::new(),
            free: Vec::new(),
            live: 0,
            cap: cap.min(0xFFFF),
            tag: tag & 0xF,
            salt,
            what,
        }
    }

    fn encode(&self, index: u16, generation: u8) -> u32 {
        encode(self.tag, self.salt, index, generation)
    }

    fn decode(&self, handle: u32) -> Option<(usize, u8)> {
        if handle >> 28 != self.tag || (handle >> 24) & 0xF != self.salt {
            return None;
        }
        let low = handle & 0xFFFF;
        let index = usize::try_from(low.checked_sub(1)?).ok()?;
        Some((index, ((handle >> 16) & 0xFF) as u8))
    }

    /// Stores `value`, returning its handle.
    pub fn insert(&mut self, value: T) -> Result<u32> {
        let limit = DeviceError::Limit {
            what: self.what,
            max: self.cap as u64,
        };
        let Some(live) = self.live.checked_add(1).filter(|&n| n <= self.cap) else {
            return Err(limit);
        };
        if let Some(index) = self.free.pop() {
            if let Some(e) = self.entries.get_mut(usize::from(index)) {
                e.value = Some(value);
                self.live = live;
                let g = e.generation;
                return Ok(self.encode(index, g));
            }
        }
        let index = u16::try_from(self.entries.len())
            .ok()
            .filter(|&i| i < 0xFFFF)
            .ok_or(limit)?;
        self.entries.push(Entry {
            generation: 1,
            value: Some(value),
        });
        self.live = live;
        Ok(self.encode(index, 1))
    }

    fn slot(&self, handle: u32) -> Option<&Entry<T>> {
        let (i, g) = self.decode(handle)?;
        self.entries
            .get(i)
            .filter(|e| e.generation == g && e.value.is_some())
    }

    /// The object `handle` names.
    pub fn get(&self, handle: u32) -> Result<&T> {
        self.slot(handle)
            .and_then(|e| e.value.as_ref())
            .ok_or(DeviceError::BadHandle {
                handle,
                what: self.what,
            })
    }

    /// The object `handle` names, writable.
    pub fn get_mut(&mut self, handle: u32) -> Result<&mut T> {
        let what = self.what;
        let Some((i, g)) = self.decode(handle) else {
            return Err(DeviceError::BadHandle { handle, what });
        };
        self.entries
            .get_mut(i)
            .filter(|e| e.generation == g)
            .and_then(|e| e.value.as_mut())
            .ok_or(DeviceError::BadHandle { handle, what })
    }

    /// True if `handle` names a live object.
    pub fn contains(&self, handle: u32) -> bool {
        self.slot(handle).is_some()
    }

    /// Removes the object, invalidating its handle forever.
    pub fn remove(&mut self, handle: u32) -> Result<T> {
        let what = self.what;
        let Some((i, g)) = self.decode(handle) else {
            return Err(DeviceError::BadHandle { handle, what });
        };
        let e = self
            .entries
            .get_mut(i)
            .filter(|e| e.generation == g && e.value.is_some())
            .ok_or(DeviceError::BadHandle { handle, what })?;
        let v = e
            .value
            .take()
            .ok_or(DeviceError::BadHandle { handle, what })?;
        // The slot held a value, so live ≥ 1.
        self.live = self.live.saturating_sub(1);
        // A slot whose generation would wrap is retired (module docs).
        if let Some(g) = e.generation.checked_add(1) {
            e.generation = g;
            if let Ok(idx) = u16::try_from(i) {
                self.free.push(idx);
            }
        }
        Ok(v)
    }

    /// Number of live objects.
    pub fn len(&self) -> usize {
        self.live
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Live handles and objects.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &T)> {
        self.entries.iter().enumerate().filter_map(move |(i, e)| {
            let v = e.value.as_ref()?;
            Some((self.encode(u16::try_from(i).ok()?, e.generation), v))
        })
    }

    /// Live handles and objects, writable.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (u32, &mut T)> {
        let (tag, salt) = (self.tag, self.salt);
        self.entries
            .iter_mut()
            .enumerate()
            .filter_map(move |(i, e)| {
                let g = e.generation;
                let v = e.value.as_mut()?;
                Some((encode(tag, salt, u16::try_from(i).ok()?, g), v))
            })
    }
}

/// The handle of slot `index` (< 0xFFFF, so index + 1 fits the low 16
/// bits) at `generation` in the slab with `tag` and `salt`.
fn encode(tag: u32, salt: u32, index: u16, generation: u8) -> u32 {
    (tag << 28) | (salt << 24) | (u32::from(generation) << 16) | (u32::from(index) + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_and_foreign_handles_are_errors() {
        let mut a: Slab<u32> = Slab::new(1, 4, "surface");
        let b: Slab<u32> = Slab::new(1, 4, "surface");
        let h = a.insert(7).unwrap();
        assert_ne!(h, 0);
        assert_eq!(*a.get(h).unwrap(), 7);
        assert!(b.get(h).is_err(), "another slab's handle");
        assert_eq!(a.remove(h).unwrap(), 7);
        assert!(a.get(h).is_err());
        let h2 = a.insert(8).unwrap();
        assert_ne!(h, h2, "slot reused with a new generation");
        assert!(a.get(h).is_err());
        assert!(a.get(0).is_err());
        assert!(a.remove(h).is_err());
    }

    #[test]
    fn cap_and_retirement() {
        let mut a: Slab<u32> = Slab::new(2, 2, "x");
        let h = a.insert(1).unwrap();
        a.insert(2).unwrap();
        assert!(a.insert(3).is_err());
        a.remove(h).unwrap();
        let mut seen = std::collections::HashSet::new();
        for _ in 0..600 {
            let h = a.insert(0).unwrap();
            assert!(seen.insert(h), "handle value reused");
            a.remove(h).unwrap();
        }
    }
}
