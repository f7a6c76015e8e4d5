//! The DDI call structures: `D3DHAL_DRAWPRIMITIVES2DATA`,
//! `D3DHAL_CLEAR2DATA`, `D3DHAL_VALIDATETEXTURESTAGESTATEDATA`, as Rust
//! structs whose fields mirror the C ones one to one (pointers become
//! handles or slices).

/// `D3DHALDP2_USERMEMVERTICES`: vertices are at `lp_vertices`.
pub const D3DHALDP2_USERMEMVERTICES: u32 = 0x1;
/// `D3DHALDP2_EXECUTEBUFFER`: mirror render states into `lpdwRStates`.
pub const D3DHALDP2_EXECUTEBUFFER: u32 = 0x2;
/// `D3DHALDP2_SWAPVERTEXBUFFER`: the driver may swap the vertex buffer.
pub const D3DHALDP2_SWAPVERTEXBUFFER: u32 = 0x4;
/// `D3DHALDP2_SWAPCOMMANDBUFFER`: the driver may swap the command buffer.
pub const D3DHALDP2_SWAPCOMMANDBUFFER: u32 = 0x8;
/// `D3DHALDP2_REQVERTEXBUFSIZE`: `dw_req_vertex_buf_size` is valid.
pub const D3DHALDP2_REQVERTEXBUFSIZE: u32 = 0x10;
/// `D3DHALDP2_REQCOMMANDBUFSIZE`: `dw_req_command_buf_size` is valid.
pub const D3DHALDP2_REQCOMMANDBUFSIZE: u32 = 0x20;
/// `D3DHALDP2_VIDMEMVERTEXBUF` (never set: buffers are system memory).
pub const D3DHALDP2_VIDMEMVERTEXBUF: u32 = 0x40;
/// `D3DHALDP2_VIDMEMCOMMANDBUF` (never set).
pub const D3DHALDP2_VIDMEMCOMMANDBUF: u32 = 0x80;

/// `D3DHAL_DRAWPRIMITIVES2DATA`.
///
/// `lp_dd_vertex` and `lp_vertices` are one union in C; `dw_flags`'s
/// USERMEMVERTICES bit says which one is meant. `ddrval` is the union of
/// the input `dwVertexSize` and the output `ddrval`: the driver reads it
/// (as the vertex size) before writing the result into it.
#[derive(Debug)]
pub struct DrawPrimitives2Data<'a> {
    /// `dwhContext`.
    pub dwh_context: u32,
    /// `dwFlags` (D3DHALDP2_*). The driver may change the SWAP bits'
    /// companions (it never sets VIDMEM*).
    pub dw_flags: u32,
    /// `dwVertexType`: the FVF of the DX6-style vertex data.
    pub dw_vertex_type: u32,
    /// `lpDDCommands`: the command-buffer surface. After a swap it names
    /// the (renamed) buffer to fill next.
    pub lp_dd_commands: u32,
    /// `dwCommandOffset` in bytes.
    pub dw_command_offset: u32,
    /// `dwCommandLength` in bytes.
    pub dw_command_length: u32,
    /// `lpDDVertex`: the vertex-buffer surface (when not USERMEMVERTICES).
    pub lp_dd_vertex: u32,
    /// `lpVertices`: user-memory vertices (when USERMEMVERTICES).
    pub lp_vertices: Option<&'a [u8]>,
    /// `dwVertexOffset` in bytes.
    pub dw_vertex_offset: u32,
    /// `dwVertexLength` in **vertices**.
    pub dw_vertex_length: u32,
    /// `dwReqVertexBufSize`.
    pub dw_req_vertex_buf_size: u32,
    /// `dwReqCommandBufSize`.
    pub dw_req_command_buf_size: u32,
    /// `lpdwRStates`: D3DHAL_MAX_RSTATES render-state slots.
    pub lpdw_r_states: Option<&'a mut [u32; 256]>,
    /// In: `dwVertexSize`. Out: `ddrval`.
    pub ddrval: u32,
    /// Out: `dwErrorOffset` (on failure: offset of the failing command from
    /// the start of the command surface, i.e. including
    /// `dw_command_offset`; on success: bytes of query responses written).
    pub dw_error_offset: u32,
}

impl<'a> DrawPrimitives2Data<'a> {
    /// A call running `dw_command_length` bytes of `commands` from offset 0
    /// with no vertex data.
    pub fn new(dwh_context: u32, commands: u32, dw_command_length: u32) -> Self {
        DrawPrimitives2Data {
            dwh_context,
            dw_flags: 0,
            dw_vertex_type: 0,
            lp_dd_commands: commands,
            dw_command_offset: 0,
            dw_command_length,
            lp_dd_vertex: 0,
            lp_vertices: None,
            dw_vertex_offset: 0,
            dw_vertex_length: 0,
            dw_req_vertex_buf_size: 0,
            dw_req_command_buf_size: 0,
            lpdw_r_states: None,
            ddrval: 0,
            dw_error_offset: 0,
        }
    }

    /// Uses user-memory vertices of FVF `fvf` (sets USERMEMVERTICES).
    pub fn with_user_vertices(mut self, fvf: u32, vertices: &'a [u8], count: u32) -> Self {
        self.dw_flags |= D3DHALDP2_USERMEMVERTICES;
        self.dw_vertex_type = fvf;
        self.lp_vertices = Some(vertices);
        self.dw_vertex_length = count;
        self
    }

    /// Uses `count` vertices of FVF `fvf` from vertex-buffer surface `vb`.
    pub fn with_vertex_buffer(mut self, fvf: u32, vb: u32, count: u32) -> Self {
        self.dw_flags &= !D3DHALDP2_USERMEMVERTICES;
        self.dw_vertex_type = fvf;
        self.lp_dd_vertex = vb;
        self.dw_vertex_length = count;
        self
    }
}

/// `D3DHAL_CLEAR2DATA`.
#[derive(Debug, Clone)]
pub struct Clear2Data<'a> {
    /// `dwhContext`.
    pub dwh_context: u32,
    /// `dwFlags` (D3DCLEAR_*).
    pub dw_flags: u32,
    /// `dwFillColor` (A8R8G8B8).
    pub dw_fill_color: u32,
    /// `dvFillDepth`.
    pub dv_fill_depth: f32,
    /// `dwFillStencil`.
    pub dw_fill_stencil: u32,
    /// `lpRects` / `dwNumRects`: D3DRECTs {x1, y1, x2, y2}.
    pub lp_rects: &'a [[i32; 4]],
    /// Out: `ddrval`.
    pub ddrval: u32,
}

/// `D3DHAL_VALIDATETEXTURESTAGESTATEDATA`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ValidateTextureStageStateData {
    /// `dwhContext`.
    pub dwh_context: u32,
    /// `dwFlags` (0).
    pub dw_flags: u32,
    /// `dwReserved`.
    pub dw_reserved: u32,
    /// Out: `dwNumPasses`.
    pub dw_num_passes: u32,
    /// Out: `ddrval`.
    pub ddrval: u32,
}
