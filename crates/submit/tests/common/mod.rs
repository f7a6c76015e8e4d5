//! The UMD side of the submission tests: a [`Sub`] collects packets and
//! the allocation list they reference, and makes the `RenderData` a UMD
//! hands to `Kmd::render`.

use softhal_submit::packet::Writer;
use softhal_submit::{AllocationListEntry, RenderData};

/// A UMD submission: packets plus the allocation list they reference.
pub struct Sub {
    /// The packets.
    pub w: Writer,
    /// The allocation list.
    pub list: Vec<AllocationListEntry>,
}

impl Sub {
    /// Nothing written, nothing listed.
    pub fn new() -> Self {
        Sub {
            w: Writer::new(),
            list: Vec::new(),
        }
    }
    /// Lists allocation `h` (`write`: WriteOperation); its list index.
    pub fn idx(&mut self, h: u32, write: bool) -> u32 {
        self.list.push(AllocationListEntry::new(h, write));
        (self.list.len() - 1) as u32
    }
    /// The render callback's data for context `ctx`.
    pub fn data(&self, ctx: u32) -> RenderData {
        RenderData {
            command_length: self.w.bytes.len() as u32,
            command_buffer: self.w.bytes.clone(),
            num_allocations: self.list.len() as u32,
            allocation_list: self.list.clone(),
            num_patch_locations: self.w.refs.len() as u32,
            patch_location_list: self.w.patch_locations(),
            h_context: Some(ctx),
            ..RenderData::default()
        }
    }
}
