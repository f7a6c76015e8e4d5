//! The C-visible types: the DDI call structures under their DDK names with
//! the DDK's layouts (`ULONG_PTR` = `usize`, pointers native, so x64 and x86
//! both match), softhal's own structures, and a self-description of each
//! (`CStruct::DESC`) from which `softhal.h` is generated.
//!
//! One source of truth: the `c_struct!` table below defines the Rust type,
//! and the same table gives the C declaration of every member and its
//! offset (from `offset_of!`), which the header generator turns into the C
//! struct and its `static_assert`s. Layout tests pin the DDK's x64 numbers
//! (`tests/c/reference_layout.h`; `docs/sources.md` names the headers).

use core::ffi::c_void;

/// `HRESULT` (a `LONG`; the codes are written as `u32` elsewhere).
pub type HRESULT = i32;

/// The opaque driver object (`softhal_driver` in C). Never constructed in
/// Rust: pointers to it are keys of the object registry.
#[repr(C)]
pub struct softhal_driver {
    _opaque: [u8; 0],
}

/// The opaque surface object (`softhal_surface` in C). Never constructed
/// in Rust: pointers to it are keys of the object registry.
#[repr(C)]
pub struct softhal_surface {
    _opaque: [u8; 0],
}

/// One member of a C structure.
#[derive(Debug, Clone, Copy)]
pub struct Member {
    /// Its C declaration (without the `;`), possibly an anonymous union.
    pub decl: &'static str,
    /// The name `offsetof` is checked with (the first union member).
    pub name: &'static str,
    /// Byte offset on the build target.
    pub offset: usize,
}

/// A C structure described for the header generator.
#[derive(Debug, Clone, Copy)]
pub struct StructDesc {
    /// The DDK (or softhal) typedef name.
    pub name: &'static str,
    /// `sizeof` on the build target.
    pub size: usize,
    /// Members in memory order.
    pub members: &'static [Member],
}

/// A `#[repr(C)]` type that describes itself for the header.
pub trait CStruct {
    /// The description.
    const DESC: StructDesc;
}

macro_rules! c_struct {
    (
        $(#[$m:meta])*
        $Name:ident {
            $( $(#[$fm:meta])* $field:ident : $ty:ty = $decl:literal ),* $(,)?
        }
    ) => {
        $(#[$m])*
        #[repr(C)]
        #[derive(Debug, Clone, Copy)]
        pub struct $Name {
            $( $(#[$fm])* #[doc = concat!("`", $decl, "`")] pub $field: $ty, )*
        }
        impl CStruct for $Name {
            const DESC: StructDesc = StructDesc {
                name: stringify!($Name),
                size: core::mem::size_of::<$Name>(),
                members: &[
                    $( Member {
                        decl: $decl,
                        name: stringify!($field),
                        offset: core::mem::offset_of!($Name, $field),
                    }, )*
                ],
            };
        }
    };
}

c_struct! {
    /// `D3DRECT`: a clear rectangle (`lpRects` of Clear2).
    D3DRECT {
        x1: i32 = "LONG x1",
        y1: i32 = "LONG y1",
        x2: i32 = "LONG x2",
        y2: i32 = "LONG y2",
    }
}

c_struct! {
    /// `D3DHAL_CONTEXTCREATEDATA`. `lpDDGbl` is the driver, `lpDDS` the
    /// render-target surface, `lpDDSZ` the depth surface or NULL.
    D3DHAL_CONTEXTCREATEDATA {
        lpDDGbl: *mut softhal_driver = "union { LPDDRAWI_DIRECTDRAW_GBL lpDDGbl; LPDDRAWI_DIRECTDRAW_LCL lpDDLcl; }",
        lpDDS: *mut softhal_surface = "union { LPDDRAWI_DDRAWSURFACE_LCL lpDDS; LPDDRAWI_DDRAWSURFACE_LCL lpDDSLcl; }",
        lpDDSZ: *mut softhal_surface = "union { LPDDRAWI_DDRAWSURFACE_LCL lpDDSZ; LPDDRAWI_DDRAWSURFACE_LCL lpDDSZLcl; }",
        dwPID: usize = "union { DWORD dwPID; ULONG_PTR dwrstates; }",
        dwhContext: usize = "ULONG_PTR dwhContext",
        ddrval: HRESULT = "HRESULT ddrval",
    }
}

c_struct! {
    /// `D3DHAL_CONTEXTDESTROYDATA`.
    D3DHAL_CONTEXTDESTROYDATA {
        dwhContext: usize = "ULONG_PTR dwhContext",
        ddrval: HRESULT = "HRESULT ddrval",
    }
}

c_struct! {
    /// `D3DHAL_DRAWPRIMITIVES2DATA`.
    D3DHAL_DRAWPRIMITIVES2DATA {
        dwhContext: usize = "ULONG_PTR dwhContext",
        dwFlags: u32 = "DWORD dwFlags",
        dwVertexType: u32 = "DWORD dwVertexType",
        lpDDCommands: *mut softhal_surface = "LPDDRAWI_DDRAWSURFACE_LCL lpDDCommands",
        dwCommandOffset: u32 = "DWORD dwCommandOffset",
        dwCommandLength: u32 = "DWORD dwCommandLength",
        lpDDVertex: *mut c_void = "union { LPDDRAWI_DDRAWSURFACE_LCL lpDDVertex; LPVOID lpVertices; }",
        dwVertexOffset: u32 = "DWORD dwVertexOffset",
        dwVertexLength: u32 = "DWORD dwVertexLength",
        dwReqVertexBufSize: u32 = "DWORD dwReqVertexBufSize",
        dwReqCommandBufSize: u32 = "DWORD dwReqCommandBufSize",
        lpdwRStates: *mut u32 = "LPDWORD lpdwRStates",
        dwVertexSize: u32 = "union { DWORD dwVertexSize; HRESULT ddrval; }",
        dwErrorOffset: u32 = "DWORD dwErrorOffset",
    }
}

c_struct! {
    /// `D3DHAL_CLEAR2DATA`.
    D3DHAL_CLEAR2DATA {
        dwhContext: usize = "ULONG_PTR dwhContext",
        dwFlags: u32 = "DWORD dwFlags",
        dwFillColor: u32 = "DWORD dwFillColor",
        dvFillDepth: f32 = "D3DVALUE dvFillDepth",
        dwFillStencil: u32 = "DWORD dwFillStencil",
        lpRects: *mut D3DRECT = "LPD3DRECT lpRects",
        dwNumRects: u32 = "DWORD dwNumRects",
        ddrval: HRESULT = "HRESULT ddrval",
    }
}

c_struct! {
    /// `D3DHAL_VALIDATETEXTURESTAGESTATEDATA` (`dwReserved` is a
    /// `ULONG_PTR`, as in the current WDK).
    D3DHAL_VALIDATETEXTURESTAGESTATEDATA {
        dwhContext: usize = "ULONG_PTR dwhContext",
        dwFlags: u32 = "DWORD dwFlags",
        dwReserved: usize = "ULONG_PTR dwReserved",
        dwNumPasses: u32 = "DWORD dwNumPasses",
        ddrval: HRESULT = "HRESULT ddrval",
    }
}

c_struct! {
    /// `D3DDDI_ALLOCATIONLIST` (8 bytes).
    D3DDDI_ALLOCATIONLIST {
        hAllocation: u32 = "D3DKMT_HANDLE hAllocation",
        Value: u32 = "union { struct { UINT WriteOperation : 1; UINT DoNotRetireInstance : 1; UINT OfferPriority : 3; UINT Reserved : 27; }; UINT Value; }",
    }
}

c_struct! {
    /// `D3DDDI_PATCHLOCATIONLIST` (24 bytes).
    D3DDDI_PATCHLOCATIONLIST {
        AllocationIndex: u32 = "UINT AllocationIndex",
        Value: u32 = "union { struct { UINT SlotId : 24; UINT Reserved : 8; }; UINT Value; }",
        DriverId: u32 = "UINT DriverId",
        AllocationOffset: u32 = "UINT AllocationOffset",
        PatchOffset: u32 = "UINT PatchOffset",
        SplitOffset: u32 = "UINT SplitOffset",
    }
}

c_struct! {
    /// `D3DDDICB_RENDER`, WDDM 1.3 level (x64: 680 bytes). Hosts built for
    /// an older `D3D_UMD_INTERFACE_VERSION` pass a shorter prefix:
    /// `softhal_render_cb` reads and writes only the Vista-level fields
    /// (up to `QueuedBufferCount`).
    D3DDDICB_RENDER {
        CommandLength: u32 = "UINT CommandLength",
        CommandOffset: u32 = "UINT CommandOffset",
        NumAllocations: u32 = "UINT NumAllocations",
        NumPatchLocations: u32 = "UINT NumPatchLocations",
        pNewCommandBuffer: *mut c_void = "VOID *pNewCommandBuffer",
        NewCommandBufferSize: u32 = "UINT NewCommandBufferSize",
        pNewAllocationList: *mut D3DDDI_ALLOCATIONLIST = "D3DDDI_ALLOCATIONLIST *pNewAllocationList",
        NewAllocationListSize: u32 = "UINT NewAllocationListSize",
        pNewPatchLocationList: *mut D3DDDI_PATCHLOCATIONLIST = "D3DDDI_PATCHLOCATIONLIST *pNewPatchLocationList",
        NewPatchLocationListSize: u32 = "UINT NewPatchLocationListSize",
        Flags: u32 = "D3DDDICB_RENDERFLAGS Flags",
        hContext: *mut c_void = "HANDLE hContext",
        BroadcastContextCount: u32 = "UINT BroadcastContextCount",
        BroadcastContext: [*mut c_void; 64] = "HANDLE BroadcastContext[D3DDDI_MAX_BROADCAST_CONTEXT]",
        QueuedBufferCount: u32 = "ULONG QueuedBufferCount",
        NewCommandBuffer: u64 = "D3DGPU_VIRTUAL_ADDRESS NewCommandBuffer",
        pPrivateDriverData: *mut c_void = "VOID *pPrivateDriverData",
        PrivateDriverDataSize: u32 = "UINT PrivateDriverDataSize",
        MarkerLogType: u32 = "D3DDDI_MARKERLOGTYPE MarkerLogType",
        RenderCBSequence: u32 = "UINT RenderCBSequence",
        FirstAPISequenceNumberHigh: u32 = "union { UINT FirstAPISequenceNumberHigh; UINT BatchedMarkerDataCount; }",
        CompletedAPISequenceNumberLow0Size: u32 = "UINT CompletedAPISequenceNumberLow0Size",
        CompletedAPISequenceNumberLow1Size: u32 = "UINT CompletedAPISequenceNumberLow1Size",
        BegunAPISequenceNumberLow0Size: u32 = "UINT BegunAPISequenceNumberLow0Size",
        BegunAPISequenceNumberLow1Size: u32 = "UINT BegunAPISequenceNumberLow1Size",
        pCompletedAPISequenceNumberLow0: *const u32 = "union { const UINT *pCompletedAPISequenceNumberLow0; const UINT *pBatchedMarkerData; }",
        pCompletedAPISequenceNumberLow1: *const u32 = "const UINT *pCompletedAPISequenceNumberLow1",
        pBegunAPISequenceNumberLow0: *const u32 = "const UINT *pBegunAPISequenceNumberLow0",
        pBegunAPISequenceNumberLow1: *const u32 = "const UINT *pBegunAPISequenceNumberLow1",
    }
}

c_struct! {
    /// softhal: a surface request / description.
    SOFTHAL_SURFACE_DESC {
        dwSize: u32 = "DWORD dwSize",
        dwKind: u32 = "DWORD dwKind",
        dwFormat: u32 = "DWORD dwFormat",
        dwWidth: u32 = "DWORD dwWidth",
        dwHeight: u32 = "DWORD dwHeight",
        dwDepth: u32 = "DWORD dwDepth",
        dwMipLevels: u32 = "DWORD dwMipLevels",
        dwHandle: u32 = "DWORD dwHandle",
    }
}

c_struct! {
    /// softhal: what `softhal_surface_lock` hands back.
    SOFTHAL_LOCKED_SURFACE {
        pBits: *mut c_void = "LPVOID pBits",
        dwPitch: u32 = "DWORD dwPitch",
        dwSize: u32 = "DWORD dwSize",
    }
}

c_struct! {
    /// softhal: the device caps (the D3DCAPS8/9 fields the DDI reports).
    SOFTHAL_CAPS {
        dwSize: u32 = "DWORD dwSize",
        Caps: u32 = "DWORD Caps",
        Caps2: u32 = "DWORD Caps2",
        DevCaps: u32 = "DWORD DevCaps",
        PrimitiveMiscCaps: u32 = "DWORD PrimitiveMiscCaps",
        RasterCaps: u32 = "DWORD RasterCaps",
        ZCmpCaps: u32 = "DWORD ZCmpCaps",
        SrcBlendCaps: u32 = "DWORD SrcBlendCaps",
        DestBlendCaps: u32 = "DWORD DestBlendCaps",
        AlphaCmpCaps: u32 = "DWORD AlphaCmpCaps",
        ShadeCaps: u32 = "DWORD ShadeCaps",
        TextureCaps: u32 = "DWORD TextureCaps",
        StencilCaps: u32 = "DWORD StencilCaps",
        FVFCaps: u32 = "DWORD FVFCaps",
        TextureOpCaps: u32 = "DWORD TextureOpCaps",
        VertexProcessingCaps: u32 = "DWORD VertexProcessingCaps",
        MaxTextureWidth: u32 = "DWORD MaxTextureWidth",
        MaxTextureHeight: u32 = "DWORD MaxTextureHeight",
        MaxVolumeExtent: u32 = "DWORD MaxVolumeExtent",
        MaxTextureBlendStages: u32 = "DWORD MaxTextureBlendStages",
        MaxSimultaneousTextures: u32 = "DWORD MaxSimultaneousTextures",
        MaxActiveLights: u32 = "DWORD MaxActiveLights",
        MaxUserClipPlanes: u32 = "DWORD MaxUserClipPlanes",
        MaxVertexBlendMatrices: u32 = "DWORD MaxVertexBlendMatrices",
        MaxPointSize: f32 = "float MaxPointSize",
        MaxPrimitiveCount: u32 = "DWORD MaxPrimitiveCount",
        MaxVertexIndex: u32 = "DWORD MaxVertexIndex",
        MaxStreams: u32 = "DWORD MaxStreams",
        MaxStreamStride: u32 = "DWORD MaxStreamStride",
        VertexShaderVersion: u32 = "DWORD VertexShaderVersion",
        MaxVertexShaderConst: u32 = "DWORD MaxVertexShaderConst",
        PixelShaderVersion: u32 = "DWORD PixelShaderVersion",
        NumSimultaneousRTs: u32 = "DWORD NumSimultaneousRTs",
        Queries: [u32; 3] = "DWORD Queries[3]",
        PixelShader1xMaxValue: f32 = "float PixelShader1xMaxValue",
        VS20Caps: u32 = "DWORD VS20Caps",
        VS20DynamicFlowControlDepth: u32 = "DWORD VS20DynamicFlowControlDepth",
        VS20NumTemps: u32 = "DWORD VS20NumTemps",
        VS20StaticFlowControlDepth: u32 = "DWORD VS20StaticFlowControlDepth",
        PS20Caps: u32 = "DWORD PS20Caps",
        PS20DynamicFlowControlDepth: u32 = "DWORD PS20DynamicFlowControlDepth",
        PS20NumTemps: u32 = "DWORD PS20NumTemps",
        PS20StaticFlowControlDepth: u32 = "DWORD PS20StaticFlowControlDepth",
        PS20NumInstructionSlots: u32 = "DWORD PS20NumInstructionSlots",
        VertexTextureFilterCaps: u32 = "DWORD VertexTextureFilterCaps",
        MaxVShaderInstructionsExecuted: u32 = "DWORD MaxVShaderInstructionsExecuted",
        MaxPShaderInstructionsExecuted: u32 = "DWORD MaxPShaderInstructionsExecuted",
        MaxVertexShader30InstructionSlots: u32 = "DWORD MaxVertexShader30InstructionSlots",
        MaxPixelShader30InstructionSlots: u32 = "DWORD MaxPixelShader30InstructionSlots",
        DevCaps2: u32 = "DWORD DevCaps2",
        DeclTypes: u32 = "DWORD DeclTypes",
    }
}

/// The DDI call structures, in header order.
pub const DDI_STRUCTS: &[StructDesc] = &[
    D3DRECT::DESC,
    D3DHAL_CONTEXTCREATEDATA::DESC,
    D3DHAL_CONTEXTDESTROYDATA::DESC,
    D3DHAL_DRAWPRIMITIVES2DATA::DESC,
    D3DHAL_CLEAR2DATA::DESC,
    D3DHAL_VALIDATETEXTURESTAGESTATEDATA::DESC,
    D3DDDI_ALLOCATIONLIST::DESC,
    D3DDDI_PATCHLOCATIONLIST::DESC,
    D3DDDICB_RENDER::DESC,
];

/// softhal's own structures, in header order.
pub const SOFTHAL_STRUCTS: &[StructDesc] = &[
    SOFTHAL_SURFACE_DESC::DESC,
    SOFTHAL_LOCKED_SURFACE::DESC,
    SOFTHAL_CAPS::DESC,
];

/// The `PFND3DPARSEUNKNOWNCOMMAND` a host installs:
/// `HRESULT (*)(void *lpvCommands, void **lplpvReturnedCommand)`.
pub type ParseUnknownCommandFn = unsafe extern "system" fn(
    lpv_commands: *mut c_void,
    lplpv_returned: *mut *mut c_void,
) -> HRESULT;

// ------------------------------------------------------------ softhal constants

/// `SOFTHAL_API_VERSION`: major << 16 | minor. Major 2: `softhal_render_cb`
/// reads the buffers the driver hands out (`softhal_render_context_get_buffers`),
/// not the host's own, and every driver has a default render context.
/// Minor 1: `SOFTHAL_CAPS` gains the shader caps after `Queries`
/// (`SOFTHAL_CAPS_SIZE_2_0` still accepted). Major 3: the texture stages
/// of the GPU commands a render-callback host submits (SET_TEXTURE, the
/// texture-stage registers) are the 16 pixel samplers 0–15, then the
/// vertex-texture samplers 16–19 (they were 8–11).
pub const SOFTHAL_API_VERSION: u32 = 0x0003_0000;
/// `sizeof(SOFTHAL_CAPS)` of API 2.0 (up to `Queries`): a host built
/// against it gets those fields filled.
pub const SOFTHAL_CAPS_SIZE_2_0: u32 = 144;
/// Surface kind: colour render target.
pub const SOFTHAL_SURFACE_RENDERTARGET: u32 = 1;
/// Surface kind: depth/stencil buffer.
pub const SOFTHAL_SURFACE_DEPTHSTENCIL: u32 = 2;
/// Surface kind: 2-D texture (`dwMipLevels` 0 = full chain).
pub const SOFTHAL_SURFACE_TEXTURE: u32 = 3;
/// Surface kind: cube texture (`dwWidth` = `dwHeight` = edge).
pub const SOFTHAL_SURFACE_CUBETEXTURE: u32 = 4;
/// Surface kind: volume texture.
pub const SOFTHAL_SURFACE_VOLUMETEXTURE: u32 = 5;
/// Surface kind: application vertex buffer (`dwWidth` = bytes).
pub const SOFTHAL_SURFACE_VERTEXBUFFER: u32 = 6;
/// Surface kind: implicit (driver-managed, renamable) vertex buffer.
pub const SOFTHAL_SURFACE_IMPLICITVERTEXBUFFER: u32 = 7;
/// Surface kind: index buffer (`dwWidth` = bytes).
pub const SOFTHAL_SURFACE_INDEXBUFFER: u32 = 8;
/// Surface kind: DP2 command buffer (`dwWidth` = bytes).
pub const SOFTHAL_SURFACE_COMMANDBUFFER: u32 = 9;
/// Surface usage bit OR'ed into `dwKind` of a texture or cube texture:
/// render-target usage (`D3DUSAGE_RENDERTARGET`; DX7 `DDSCAPS_TEXTURE |
/// DDSCAPS_3DDEVICE`): it can also be a context's render target.
pub const SOFTHAL_SURFACE_USAGE_RENDERTARGET: u32 = 0x100;
/// Lock flag (= `D3DLOCK_READONLY`): the host will not write; unlock
/// copies nothing back.
pub const SOFTHAL_LOCK_READONLY: u32 = 0x10;
/// Lock flag (= `D3DLOCK_NOOVERWRITE`).
pub const SOFTHAL_LOCK_NOOVERWRITE: u32 = 0x1000;
/// Lock flag (= `D3DLOCK_DISCARD`): a busy buffer is renamed.
pub const SOFTHAL_LOCK_DISCARD: u32 = 0x2000;
/// Render-context engine: the 3-D engine (every user packet).
pub const SOFTHAL_ENGINE_3D: u32 = 0;
/// Render-context engine: the copy engine (NOP and BUFFER_COPY only).
pub const SOFTHAL_ENGINE_COPY: u32 = 1;

/// Most render threads `softhal_driver_create` accepts
/// (= `softhal_pipeline::limits::MAX_THREADS`).
pub const SOFTHAL_MAX_THREADS: u32 = softhal_pipeline::limits::MAX_THREADS as u32;
/// A new driver's GPU timeout in milliseconds
/// (= `softhal_submit::limits::DEFAULT_GPU_TIMEOUT_MS`).
pub const SOFTHAL_DEFAULT_GPU_TIMEOUT_MS: u32 =
    softhal_submit::limits::DEFAULT_GPU_TIMEOUT_MS as u32;

/// softhal's own `#define`s: (name, value, doc).
pub const SOFTHAL_CONSTANTS: &[(&str, u32, &str)] = &[
    (
        "SOFTHAL_MAX_THREADS",
        SOFTHAL_MAX_THREADS,
        "most render threads softhal_driver_create accepts (more: DDERR_INVALIDPARAMS)",
    ),
    (
        "SOFTHAL_DEFAULT_GPU_TIMEOUT_MS",
        SOFTHAL_DEFAULT_GPU_TIMEOUT_MS,
        "a new driver's GPU timeout per submission, ms (softhal_driver_set_timeout)",
    ),
    (
        "SOFTHAL_API_VERSION",
        SOFTHAL_API_VERSION,
        "major << 16 | minor",
    ),
    (
        "SOFTHAL_CAPS_SIZE_2_0",
        SOFTHAL_CAPS_SIZE_2_0,
        "sizeof(SOFTHAL_CAPS) of API 2.0 (fields up to Queries), still accepted as dwSize",
    ),
    (
        "SOFTHAL_SURFACE_RENDERTARGET",
        SOFTHAL_SURFACE_RENDERTARGET,
        "colour render target",
    ),
    (
        "SOFTHAL_SURFACE_DEPTHSTENCIL",
        SOFTHAL_SURFACE_DEPTHSTENCIL,
        "depth/stencil buffer",
    ),
    (
        "SOFTHAL_SURFACE_TEXTURE",
        SOFTHAL_SURFACE_TEXTURE,
        "2-D texture; dwMipLevels 0 = full chain",
    ),
    (
        "SOFTHAL_SURFACE_CUBETEXTURE",
        SOFTHAL_SURFACE_CUBETEXTURE,
        "cube texture; dwWidth = dwHeight = edge",
    ),
    (
        "SOFTHAL_SURFACE_VOLUMETEXTURE",
        SOFTHAL_SURFACE_VOLUMETEXTURE,
        "volume texture",
    ),
    (
        "SOFTHAL_SURFACE_VERTEXBUFFER",
        SOFTHAL_SURFACE_VERTEXBUFFER,
        "vertex buffer; dwWidth = bytes",
    ),
    (
        "SOFTHAL_SURFACE_IMPLICITVERTEXBUFFER",
        SOFTHAL_SURFACE_IMPLICITVERTEXBUFFER,
        "driver-managed (renamable) vertex buffer; dwWidth = bytes",
    ),
    (
        "SOFTHAL_SURFACE_INDEXBUFFER",
        SOFTHAL_SURFACE_INDEXBUFFER,
        "index buffer; dwWidth = bytes",
    ),
    (
        "SOFTHAL_SURFACE_COMMANDBUFFER",
        SOFTHAL_SURFACE_COMMANDBUFFER,
        "DP2 command buffer; dwWidth = bytes",
    ),
    (
        "SOFTHAL_SURFACE_USAGE_RENDERTARGET",
        SOFTHAL_SURFACE_USAGE_RENDERTARGET,
        "OR'ed into dwKind of a (cube) texture: D3DUSAGE_RENDERTARGET, also a render target",
    ),
    (
        "SOFTHAL_LOCK_READONLY",
        SOFTHAL_LOCK_READONLY,
        "= D3DLOCK_READONLY: unlock copies nothing back",
    ),
    (
        "SOFTHAL_LOCK_NOOVERWRITE",
        SOFTHAL_LOCK_NOOVERWRITE,
        "= D3DLOCK_NOOVERWRITE",
    ),
    (
        "SOFTHAL_LOCK_DISCARD",
        SOFTHAL_LOCK_DISCARD,
        "= D3DLOCK_DISCARD: a busy buffer is renamed",
    ),
    (
        "SOFTHAL_ENGINE_3D",
        SOFTHAL_ENGINE_3D,
        "render context on the 3-D engine",
    ),
    (
        "SOFTHAL_ENGINE_COPY",
        SOFTHAL_ENGINE_COPY,
        "render context on the copy engine (NOP, BUFFER_COPY)",
    ),
];
