//! The records of a capture: what a host did with the driver, and what the
//! driver answered.
//!
//! In: nothing (data types). Out: [`Capture`] and [`Record`], the one model
//! that the binary form ([`crate::binary`]), the text form
//! ([`crate::text`]), the [`crate::Recorder`] and the [`mod@crate::replay`]er
//! share. Handles are the values the *recording* driver returned; a replay
//! maps them to its own (see [`mod@crate::replay`]).

/// A whole capture: the records in call order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Capture {
    /// The records, in the order the host made the calls.
    pub records: Vec<Record>,
}

/// What a surface is for, as stored in a capture (`kind` field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SurfaceKindCode {
    /// Render target.
    RenderTarget = 0,
    /// Depth/stencil buffer.
    DepthStencil = 1,
    /// 2-D texture.
    Texture = 2,
    /// Cube texture.
    CubeTexture = 3,
    /// Volume texture.
    VolumeTexture = 4,
    /// Explicit (application) vertex buffer.
    VertexBuffer = 5,
    /// Implicit (driver-managed) vertex buffer.
    ImplicitVertexBuffer = 6,
    /// Index buffer.
    IndexBuffer = 7,
    /// DP2 command buffer.
    CommandBuffer = 8,
}

impl SurfaceKindCode {
    /// Every kind, in code order.
    pub const ALL: [SurfaceKindCode; 9] = [
        SurfaceKindCode::RenderTarget,
        SurfaceKindCode::DepthStencil,
        SurfaceKindCode::Texture,
        SurfaceKindCode::CubeTexture,
        SurfaceKindCode::VolumeTexture,
        SurfaceKindCode::VertexBuffer,
        SurfaceKindCode::ImplicitVertexBuffer,
        SurfaceKindCode::IndexBuffer,
        SurfaceKindCode::CommandBuffer,
    ];

    /// The kind with this code.
    pub fn from_code(code: u32) -> Option<Self> {
        Self::ALL.iter().copied().find(|k| *k as u32 == code)
    }

    /// The text-form keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            SurfaceKindCode::RenderTarget => "render_target",
            SurfaceKindCode::DepthStencil => "depth_stencil",
            SurfaceKindCode::Texture => "texture",
            SurfaceKindCode::CubeTexture => "cube_texture",
            SurfaceKindCode::VolumeTexture => "volume_texture",
            SurfaceKindCode::VertexBuffer => "vertex_buffer",
            SurfaceKindCode::ImplicitVertexBuffer => "implicit_vertex_buffer",
            SurfaceKindCode::IndexBuffer => "index_buffer",
            SurfaceKindCode::CommandBuffer => "command_buffer",
        }
    }

    /// The kind for a text-form keyword.
    pub fn from_keyword(w: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|k| k.keyword().eq_ignore_ascii_case(w))
    }

    /// True for the byte-buffer kinds (size in `width`, no format).
    pub fn is_buffer(self) -> bool {
        matches!(
            self,
            SurfaceKindCode::VertexBuffer
                | SurfaceKindCode::ImplicitVertexBuffer
                | SurfaceKindCode::IndexBuffer
                | SurfaceKindCode::CommandBuffer
        )
    }
}

/// A surface creation request, as recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SurfaceSpec {
    /// [`SurfaceKindCode`] as a raw code (unknown codes are kept so that a
    /// replay can answer them as the driver would: invalid parameters).
    pub kind: u32,
    /// D3DFORMAT number (0 for buffers).
    pub format: u32,
    /// Width in pixels; bytes for buffers.
    pub width: u32,
    /// Height in pixels (1 for buffers).
    pub height: u32,
    /// Depth in slices (volume textures; 1 otherwise).
    pub depth: u32,
    /// Mip levels (0 = full chain).
    pub mip_levels: u32,
}

impl SurfaceSpec {
    /// Bit of `kind`: render-target usage (D3DUSAGE_RENDERTARGET; DX7
    /// DDSCAPS_3DDEVICE on a texture): a texture that can also be a
    /// render target. Text form: `usage=render_target`.
    pub const RENDER_TARGET_USAGE: u32 = 0x100;

    /// The kind without usage bits (`None` for an unknown code).
    pub fn kind_code(&self) -> Option<SurfaceKindCode> {
        SurfaceKindCode::from_code(self.kind & !Self::RENDER_TARGET_USAGE)
    }

    /// Is the render-target usage bit set?
    pub fn render_target_usage(&self) -> bool {
        self.kind & Self::RENDER_TARGET_USAGE != 0
    }
}

/// The driver's answer to one call, as recorded (or as replayed). Each
/// record kind uses the fields listed in its documentation; the others are 0.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Answer {
    /// `ddrval` (HRESULT); for calls returning a `Result`, `D3D_OK` or the
    /// error's `DeviceError::ddrval`.
    pub ddrval: u32,
    /// DrawPrimitives2: `dwErrorOffset`.
    pub error_offset: u32,
    /// DrawPrimitives2: `dwFlags` after the call.
    pub flags: u32,
    /// ValidateTextureStageState: `dwNumPasses`.
    pub passes: u32,
    /// Flip / Present: FNV-1a 64 of the presented RGBA8 bytes (0 if the
    /// call failed).
    pub checksum: u64,
    /// DrawPrimitives2 with `lpdwRStates`: the array after the call.
    pub rstates: Option<Box<[u32; 256]>>,
    /// Submit: the granted sizes `NewCommandBufferSize` (bytes),
    /// `NewAllocationListSize` and `NewPatchLocationListSize` (entries).
    pub sizes: [u32; 3],
    /// Submit: `QueuedBufferCount`.
    pub queued: u32,
}

/// One DrawPrimitives2 call: every `D3DHAL_DRAWPRIMITIVES2DATA` input field
/// and the data behind its pointers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Dp2Call {
    /// `dwhContext`.
    pub context: u32,
    /// `dwFlags` (D3DHALDP2_*) as passed in.
    pub flags: u32,
    /// `dwVertexType`.
    pub vertex_type: u32,
    /// `lpDDCommands` (surface handle).
    pub commands: u32,
    /// `dwCommandOffset`.
    pub command_offset: u32,
    /// `dwCommandLength`.
    pub command_length: u32,
    /// `lpDDVertex` (surface handle; meaningful without USERMEMVERTICES).
    pub vertex_surface: u32,
    /// `dwVertexOffset`.
    pub vertex_offset: u32,
    /// `dwVertexLength` (vertices).
    pub vertex_length: u32,
    /// `dwReqVertexBufSize`.
    pub req_vertex_buf_size: u32,
    /// `dwReqCommandBufSize`.
    pub req_command_buf_size: u32,
    /// `dwVertexSize` (the input half of the `ddrval` union).
    pub vertex_size: u32,
    /// The command bytes: the command surface from `dwCommandOffset` for
    /// `dwCommandLength` bytes, as far as the surface reached, at call time.
    pub command_bytes: Vec<u8>,
    /// `lpVertices`: the user-memory vertex bytes, if the host passed any.
    pub user_vertices: Option<Vec<u8>>,
    /// `lpdwRStates` before the call, if the host passed the array.
    pub rstates: Option<Box<[u32; 256]>>,
}

/// One `D3DHAL_CLEAR2DATA` call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Clear2Call {
    /// `dwhContext`.
    pub context: u32,
    /// `dwFlags` (D3DCLEAR_*).
    pub flags: u32,
    /// `dwFillColor`.
    pub color: u32,
    /// `dvFillDepth` as IEEE bits.
    pub depth_bits: u32,
    /// `dwFillStencil`.
    pub stencil: u32,
    /// `lpRects`: {x1, y1, x2, y2}.
    pub rects: Vec<[i32; 4]>,
}

/// One allocation-list entry of a recorded submission
/// (`D3DDDI_ALLOCATIONLIST`) and the surface it named.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SubmitAllocation {
    /// `hAllocation` as the host passed it (the recording driver's
    /// allocation handle).
    pub handle: u32,
    /// `Value` (WriteOperation, DoNotRetireInstance, OfferPriority, reserved
    /// bits).
    pub value: u32,
    /// The surface whose allocation `handle` was when the call was made (0:
    /// none, the handle was invalid). A replay names that surface's
    /// allocation in its own driver, or 0 (never a valid allocation).
    pub surface: u32,
}

/// One render-callback submission (`softhal_render_cb` /
/// `Driver::render`): every `D3DDDICB_RENDER` input and the data behind its
/// pointers, as the driver received them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SubmitCall {
    /// `hContext`: a render context handle (0 = NULL).
    pub context: u32,
    /// `Flags` (`D3DDDICB_RENDERFLAGS`).
    pub flags: u32,
    /// `CommandOffset`.
    pub command_offset: u32,
    /// `CommandLength`.
    pub command_length: u32,
    /// `NumAllocations`.
    pub num_allocations: u32,
    /// `NumPatchLocations`.
    pub num_patch_locations: u32,
    /// `NewCommandBufferSize` as passed in (a request with
    /// RESIZE_COMMAND_BUFFER).
    pub req_command_buffer_size: u32,
    /// `NewAllocationListSize` as passed in.
    pub req_allocation_list_size: u32,
    /// `NewPatchLocationListSize` as passed in.
    pub req_patch_list_size: u32,
    /// The command buffer handed in (its length may differ from
    /// `command_length`: a call whose length lies is recorded as made).
    pub command_bytes: Vec<u8>,
    /// The allocation-list entries handed in.
    pub allocations: Vec<SubmitAllocation>,
    /// The patch-location entries handed in.
    pub patches: Vec<softhal_submit::PatchLocation>,
}

/// How a surface was locked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockApi {
    /// `Driver::lock` (buffer bytes or level 0, with the busy-buffer model).
    Lock = 0,
    /// `Driver::lock_level(face, level)`.
    LockLevel = 1,
}

/// One record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// A surface was created (`handle` is what the driver returned, 0 if it
    /// failed) with optional initial contents (the planes in storage
    /// order: face-major, then level; a prefix may be given). Answer:
    /// `ddrval`.
    CreateSurface {
        /// Handle returned.
        handle: u32,
        /// The request.
        spec: SurfaceSpec,
        /// Initial contents.
        init: Vec<u8>,
        /// Recorded answer.
        answer: Option<Answer>,
    },
    /// A surface was destroyed. Answer: `ddrval`.
    DestroySurface {
        /// Handle.
        handle: u32,
        /// Recorded answer.
        answer: Option<Answer>,
    },
    /// A surface was locked. Answer: `ddrval`.
    Lock {
        /// Handle.
        handle: u32,
        /// Which entry point.
        api: LockApi,
        /// Face (LockLevel).
        face: u32,
        /// Level (LockLevel).
        level: u32,
        /// `discard` (bit 0) and `no_overwrite` (bit 1) (Lock).
        flags: u32,
        /// Recorded answer.
        answer: Option<Answer>,
    },
    /// A surface was unlocked; `bytes` were written at `offset` of the
    /// locked plane (face `face`, level `level`; buffers: 0, 0) while it was
    /// locked. Answer: `ddrval`.
    Unlock {
        /// Handle.
        handle: u32,
        /// Face of the plane written.
        face: u32,
        /// Level of the plane written.
        level: u32,
        /// Byte offset in the plane.
        offset: u32,
        /// Bytes written.
        bytes: Vec<u8>,
        /// Recorded answer.
        answer: Option<Answer>,
    },
    /// ContextCreate (`depth` 0 = none; `handle` 0 if it failed). Answer:
    /// `ddrval`.
    ContextCreate {
        /// Handle returned.
        handle: u32,
        /// Render target.
        render_target: u32,
        /// Depth/stencil (0: none).
        depth: u32,
        /// Recorded answer.
        answer: Option<Answer>,
    },
    /// ContextDestroy. Answer: `ddrval`.
    ContextDestroy {
        /// Handle.
        handle: u32,
        /// Recorded answer.
        answer: Option<Answer>,
    },
    /// D3dDrawPrimitives2. Answer: `ddrval`, `error_offset`, `flags`,
    /// `rstates` (when the call passed them).
    DrawPrimitives2 {
        /// The call.
        call: Box<Dp2Call>,
        /// Recorded answer.
        answer: Option<Answer>,
    },
    /// Clear2. Answer: `ddrval`.
    Clear2 {
        /// The call.
        call: Clear2Call,
        /// Recorded answer.
        answer: Option<Answer>,
    },
    /// ValidateTextureStageState. Answer: `ddrval`, `passes`.
    ValidateTextureStageState {
        /// `dwhContext`.
        context: u32,
        /// `dwFlags`.
        flags: u32,
        /// `dwReserved`.
        reserved: u32,
        /// Recorded answer.
        answer: Option<Answer>,
    },
    /// A flip to render target `handle` started (the frame is presented).
    /// Answer: `ddrval`, `checksum`.
    Flip {
        /// Handle.
        handle: u32,
        /// Recorded answer.
        answer: Option<Answer>,
    },
    /// Every pending flip completed (vertical blank).
    CompleteFlips,
    /// A render target was presented. Answer: `ddrval`, `checksum`.
    Present {
        /// Handle.
        handle: u32,
        /// Recorded answer.
        answer: Option<Answer>,
    },
    /// All work completed (no buffer busy).
    CompleteWork,
    /// A render-callback submission. Answer: `ddrval`, `sizes`, `queued`.
    Submit {
        /// The call.
        call: Box<SubmitCall>,
        /// Recorded answer.
        answer: Option<Answer>,
    },
    /// A GPU context for render-callback submissions was created on engine
    /// `engine` (0 3-D, 1 copy; `handle` 0 if it failed). Answer: `ddrval`.
    RenderContextCreate {
        /// Handle returned.
        handle: u32,
        /// Engine code.
        engine: u32,
        /// Recorded answer.
        answer: Option<Answer>,
    },
    /// A render context was destroyed. Answer: `ddrval`.
    RenderContextDestroy {
        /// Handle.
        handle: u32,
        /// Recorded answer.
        answer: Option<Answer>,
    },
    /// DdSetColorKey (DDCKEY_SRCBLT) on a texture
    /// ([`softhal_device::Driver::set_color_key`]): `enable` 0 removes the
    /// key. Answer: `ddrval`.
    SetColorKey {
        /// The texture.
        handle: u32,
        /// Non-zero: set `low..=high`; 0: remove.
        enable: u32,
        /// dwColorSpaceLowValue.
        low: u32,
        /// dwColorSpaceHighValue.
        high: u32,
        /// Recorded answer.
        answer: Option<Answer>,
    },
    /// The runtime's D3DGDI2_TYPE_DXVERSION notification
    /// ([`softhal_device::Driver::notify_dx_version`]).
    DxVersion {
        /// DD_RUNTIME_VERSION (0x700, 0x800, 0x900).
        version: u32,
    },
    /// The handle of an attached surface (a mip level or cube face) of a
    /// render-target texture
    /// ([`softhal_device::Driver::attached_surface`]). Answer: `ddrval`.
    AttachedSurface {
        /// The handle returned (0 on failure).
        handle: u32,
        /// The texture.
        texture: u32,
        /// Cube face.
        face: u32,
        /// Mip level.
        level: u32,
        /// Recorded answer.
        answer: Option<Answer>,
    },
}

impl Record {
    /// The record's short name (text-form keyword).
    pub fn name(&self) -> &'static str {
        match self {
            Record::CreateSurface { .. } => "surface",
            Record::DestroySurface { .. } => "destroy",
            Record::Lock { .. } => "lock",
            Record::Unlock { .. } => "unlock",
            Record::ContextCreate { .. } => "context",
            Record::ContextDestroy { .. } => "context_destroy",
            Record::DrawPrimitives2 { .. } => "dp2",
            Record::Clear2 { .. } => "clear2",
            Record::ValidateTextureStageState { .. } => "validate_tss",
            Record::Flip { .. } => "flip",
            Record::CompleteFlips => "complete_flips",
            Record::Present { .. } => "present",
            Record::CompleteWork => "complete_work",
            Record::Submit { .. } => "submit",
            Record::RenderContextCreate { .. } => "render_context",
            Record::RenderContextDestroy { .. } => "render_context_destroy",
            Record::SetColorKey { .. } => "color_key",
            Record::DxVersion { .. } => "dx_version",
            Record::AttachedSurface { .. } => "attached",
        }
    }

    /// The recorded answer, if the record kind has one and it was recorded.
    pub fn answer(&self) -> Option<&Answer> {
        match self {
            Record::CreateSurface { answer, .. }
            | Record::DestroySurface { answer, .. }
            | Record::Lock { answer, .. }
            | Record::Unlock { answer, .. }
            | Record::ContextCreate { answer, .. }
            | Record::ContextDestroy { answer, .. }
            | Record::DrawPrimitives2 { answer, .. }
            | Record::Clear2 { answer, .. }
            | Record::ValidateTextureStageState { answer, .. }
            | Record::Flip { answer, .. }
            | Record::Present { answer, .. }
            | Record::Submit { answer, .. }
            | Record::RenderContextCreate { answer, .. }
            | Record::RenderContextDestroy { answer, .. }
            | Record::SetColorKey { answer, .. }
            | Record::AttachedSurface { answer, .. } => answer.as_ref(),
            Record::CompleteFlips | Record::CompleteWork | Record::DxVersion { .. } => None,
        }
    }

    /// The answer slot of records that have one.
    pub fn answer_mut(&mut self) -> Option<&mut Option<Answer>> {
        match self {
            Record::CreateSurface { answer, .. }
            | Record::DestroySurface { answer, .. }
            | Record::Lock { answer, .. }
            | Record::Unlock { answer, .. }
            | Record::ContextCreate { answer, .. }
            | Record::ContextDestroy { answer, .. }
            | Record::DrawPrimitives2 { answer, .. }
            | Record::Clear2 { answer, .. }
            | Record::ValidateTextureStageState { answer, .. }
            | Record::Flip { answer, .. }
            | Record::Present { answer, .. }
            | Record::Submit { answer, .. }
            | Record::RenderContextCreate { answer, .. }
            | Record::RenderContextDestroy { answer, .. }
            | Record::SetColorKey { answer, .. }
            | Record::AttachedSurface { answer, .. } => Some(answer),
            Record::CompleteFlips | Record::CompleteWork | Record::DxVersion { .. } => None,
        }
    }
}

/// FNV-1a 64 of `bytes` (the frame checksum of `softhal render`).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    fnv1a64_continue(0xcbf2_9ce4_8422_2325, bytes)
}

/// FNV-1a 64 continued over `bytes` from the hash `h` of the bytes before:
/// `fnv1a64_continue(fnv1a64(a), b) == fnv1a64(a ++ b)` (a checksum over
/// rows that are not contiguous).
pub fn fnv1a64_continue(mut h: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
