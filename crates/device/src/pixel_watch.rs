//! Pixel history through the driver: a debugging option of the driver,
//! never of the command stream.
//!
//! In: [`crate::Driver::set_pixel_watch`] (pixels of the render target,
//! at most `softhal_pipeline::limits::MAX_WATCHED_PIXELS`), set by the
//! tool that owns the driver (a capture replay, a debugger). Out: after
//! each DP2 command that drew while the watch was set, one
//! [`CommandHistory`] (the command's offset in the command buffer, its
//! opcode, and per pipeline draw the pixels' histories), taken with
//! [`crate::Driver::take_pixel_history`].
//!
//! The option travels beside the packets, not in them: the driver tells
//! the kernel side (`softhal_submit::Kmd::set_pixel_watch`), whose GPU
//! then runs every draw with `softhal_pipeline::Renderer::draw_watched`
//! (the same pixels). No DP2 command or GPU packet can set, read or grow
//! it, so it adds nothing to the untrusted surface. While it is set, the
//! driver runs each command's GPU work before the next command (so that
//! each history belongs to one command); the pixels are the same.

use softhal_pipeline::PixelHistory;

/// What one pipeline draw of a DP2 command did to the watched pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct DrawHistory {
    /// The render target surface (0 if it was not a surface of this
    /// driver).
    pub render_target: u32,
    /// One history per watched pixel, in the order watched.
    pub pixels: Vec<PixelHistory>,
}

/// The draws of one DP2 command while a pixel watch was set.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandHistory {
    /// Byte offset of the command's header from the start of the command
    /// surface (as `dwErrorOffset` counts).
    pub command_offset: u32,
    /// The command's `bCommand` (a `D3DDP2OP_*` value).
    pub opcode: u8,
    /// Its pipeline draws, in order (a DX6 indexed command may make
    /// several).
    pub draws: Vec<DrawHistory>,
}
