//! The DDK-shaped types of the render callback: `D3DDDICB_RENDER`
//! ([`RenderData`]), `D3DDDI_ALLOCATIONLIST` ([`AllocationListEntry`]),
//! `D3DDDI_PATCHLOCATIONLIST` ([`PatchLocation`]) and the
//! `D3DDDICB_RENDERFLAGS` bits ([`render_flags`]).
//!
//! In: nothing (types only). Out: what a UMD fills and hands to
//! [`crate::Kmd::render`], and what it gets back. Guarantee: the fields
//! are the DDK's, named as the DDK names them (the ones softhal does not
//! model are said so); the rules they obey are checked by the kernel
//! (`verify`) and documented in `docs/submission.md`.

/// `D3DDDICB_RENDERFLAGS` bits.
pub mod render_flags {
    /// NewCommandBufferSize holds the requested size (bytes).
    pub const RESIZE_COMMAND_BUFFER: u32 = 0x1;
    /// NewAllocationListSize holds the requested element count.
    pub const RESIZE_ALLOCATION_LIST: u32 = 0x2;
    /// NewPatchLocationListSize holds the requested element count.
    pub const RESIZE_PATCH_LOCATION_LIST: u32 = 0x4;
    /// Validate and signal, but skip the commands.
    pub const NULL_RENDERING: u32 = 0x8;
    /// Bits that must be 0.
    pub const RESERVED: u32 = !0xF;
}

/// `D3DDDI_ALLOCATIONLIST` (8 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AllocationListEntry {
    /// hAllocation (kernel handle).
    pub h_allocation: u32,
    /// Bit 0 WriteOperation, bit 1 DoNotRetireInstance, bits 2–4
    /// OfferPriority; other bits must be 0.
    pub value: u32,
}

impl AllocationListEntry {
    /// WriteOperation bit.
    pub const WRITE: u32 = 0x1;
    /// An entry for `h` (`write`: the submission writes it).
    pub fn new(h: u32, write: bool) -> Self {
        AllocationListEntry {
            h_allocation: h,
            value: u32::from(write),
        }
    }
}

/// `D3DDDI_PATCHLOCATIONLIST` (24 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PatchLocation {
    /// Index into the allocation list.
    pub allocation_index: u32,
    /// SlotId (24 bits) and reserved bits: must be 0 in softhal.
    pub slot_id: u32,
    /// DriverId: must be 0.
    pub driver_id: u32,
    /// AllocationOffset: must be 0 (packets carry their own offsets).
    pub allocation_offset: u32,
    /// Byte offset, from the start of the command buffer, of the reference
    /// DWORD the kernel fills with the allocation handle.
    pub patch_offset: u32,
    /// SplitOffset: must be 0.
    pub split_offset: u32,
}

/// `D3DDDICB_RENDER` (the fields softhal uses; the broadcast, marker and
/// private-data fields are not modelled).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RenderData {
    /// in: bytes of commands from offset 0 of `command_buffer`.
    pub command_length: u32,
    /// in: offset of the first command.
    pub command_offset: u32,
    /// in: allocation-list entries used.
    pub num_allocations: u32,
    /// in: patch locations used.
    pub num_patch_locations: u32,
    /// in: the command buffer the UMD filled (at least `command_length`
    /// bytes); out (accepted call): the new one, empty, with capacity for
    /// `new_command_buffer_size` bytes (the UMD appends). A rejected call
    /// leaves the contents alone.
    pub command_buffer: Vec<u8>,
    /// in (with RESIZE_COMMAND_BUFFER): requested size; out: its size.
    pub new_command_buffer_size: u32,
    /// in/out: the allocation list (out: empty, capacity for the size).
    pub allocation_list: Vec<AllocationListEntry>,
    /// in (with RESIZE_ALLOCATION_LIST): requested; out: its size.
    pub new_allocation_list_size: u32,
    /// in/out: the patch-location list (out: empty, capacity for the size).
    pub patch_location_list: Vec<PatchLocation>,
    /// in (with RESIZE_PATCH_LOCATION_LIST): requested; out: its size.
    pub new_patch_location_list_size: u32,
    /// in: [`render_flags`].
    pub flags: u32,
    /// in: the context (`None`: the device's default context).
    pub h_context: Option<u32>,
    /// out: submissions queued and not yet executed.
    pub queued_buffer_count: u32,
    /// out (softhal extension): the fence value the submission signals on
    /// its context (unchanged when nothing was submitted).
    pub fence: u64,
}
