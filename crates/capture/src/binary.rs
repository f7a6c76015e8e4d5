//! The binary capture format (`docs/capture-format.md`): encoder and
//! bounded decoder.
//!
//! In: a [`Capture`] ([`encode`]) or untrusted bytes ([`decode`]). Out:
//! bytes, or a [`Capture`] / a [`LoadError`] naming the record number and
//! byte offset. Guarantees: decoding never panics, never reads outside the
//! slice, checks every length against the bytes that remain before
//! allocating, and caps totals by [`crate::limits`].
//!
//! Layout: header `"SHALCAP\x1a"`, `u32` version, `u32` flags (0); then
//! records `u16 type, u16 flags, u32 payload length, payload`; the last
//! record is END (type 0) carrying the number of records before it. All
//! integers little-endian.

use crate::error::{LoadError, LoadErrorKind};
use crate::limits;
use crate::record::*;

/// The 8 bytes every binary capture starts with.
pub const MAGIC: [u8; 8] = *b"SHALCAP\x1a";
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;
/// Bytes of the file header.
pub const HEADER_BYTES: usize = 16;
/// Record-header flag: a reader that does not know the type skips it
/// instead of rejecting the capture.
pub const FLAG_SKIPPABLE: u16 = 1;

/// Record type codes.
pub mod kind {
    /// End of capture (`u32` number of records before it).
    pub const END: u16 = 0;
    /// Surface creation.
    pub const CREATE_SURFACE: u16 = 1;
    /// Surface destruction.
    pub const DESTROY_SURFACE: u16 = 2;
    /// Lock.
    pub const LOCK: u16 = 3;
    /// Unlock with the bytes written.
    pub const UNLOCK: u16 = 4;
    /// ContextCreate.
    pub const CONTEXT_CREATE: u16 = 5;
    /// ContextDestroy.
    pub const CONTEXT_DESTROY: u16 = 6;
    /// D3dDrawPrimitives2.
    pub const DRAW_PRIMITIVES2: u16 = 7;
    /// Clear2.
    pub const CLEAR2: u16 = 8;
    /// ValidateTextureStageState.
    pub const VALIDATE_TSS: u16 = 9;
    /// Flip.
    pub const FLIP: u16 = 10;
    /// Complete pending flips.
    pub const COMPLETE_FLIPS: u16 = 11;
    /// Present.
    pub const PRESENT: u16 = 12;
    /// Complete all work.
    pub const COMPLETE_WORK: u16 = 13;
    /// A render-callback (WDDM-style) submission.
    pub const SUBMIT: u16 = 14;
    /// A GPU context for render-callback submissions was created.
    pub const RENDER_CONTEXT_CREATE: u16 = 15;
    /// A render context was destroyed.
    pub const RENDER_CONTEXT_DESTROY: u16 = 16;
    /// A texture's source colour key was set or removed.
    pub const SET_COLOR_KEY: u16 = 17;
    /// The runtime version notification.
    pub const DX_VERSION: u16 = 18;
    /// An attached surface (mip level or cube face) of a render-target
    /// texture was named.
    pub const ATTACHED_SURFACE: u16 = 19;
}

// ====================================================================== encode

struct Out(Vec<u8>);

impl Out {
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn blob(&mut self, b: &[u8]) {
        self.u32(b.len() as u32);
        self.0.extend_from_slice(b);
    }
    fn rstates(&mut self, r: &Option<Box<[u32; 256]>>) {
        match r {
            None => self.u32(0),
            Some(a) => {
                self.u32(1);
                for v in a.iter() {
                    self.u32(*v);
                }
            }
        }
    }
}

#[derive(Clone, Copy)]
enum AnswerShape {
    Status,
    Dp2,
    Passes,
    Frame,
    Submit,
}

fn put_answer(o: &mut Out, a: &Option<Answer>, shape: AnswerShape) {
    let Some(a) = a else {
        o.u32(0);
        return;
    };
    o.u32(1);
    o.u32(a.ddrval);
    match shape {
        AnswerShape::Status => {}
        AnswerShape::Dp2 => {
            o.u32(a.error_offset);
            o.u32(a.flags);
            o.rstates(&a.rstates);
        }
        AnswerShape::Passes => o.u32(a.passes),
        AnswerShape::Frame => o.u64(a.checksum),
        AnswerShape::Submit => {
            for v in a.sizes {
                o.u32(v);
            }
            o.u32(a.queued);
        }
    }
}

/// The type code and payload of one record.
pub fn encode_record(r: &Record) -> (u16, Vec<u8>) {
    let mut o = Out(Vec::new());
    let code = match r {
        Record::CreateSurface {
            handle,
            spec,
            init,
            answer,
        } => {
            o.u32(*handle);
            for v in [
                spec.kind,
                spec.format,
                spec.width,
                spec.height,
                spec.depth,
                spec.mip_levels,
            ] {
                o.u32(v);
            }
            o.blob(init);
            put_answer(&mut o, answer, AnswerShape::Status);
            kind::CREATE_SURFACE
        }
        Record::DestroySurface { handle, answer } => {
            o.u32(*handle);
            put_answer(&mut o, answer, AnswerShape::Status);
            kind::DESTROY_SURFACE
        }
        Record::Lock {
            handle,
            api,
            face,
            level,
            flags,
            answer,
        } => {
            for v in [*handle, *api as u32, *face, *level, *flags] {
                o.u32(v);
            }
            put_answer(&mut o, answer, AnswerShape::Status);
            kind::LOCK
        }
        Record::Unlock {
            handle,
            face,
            level,
            offset,
            bytes,
            answer,
        } => {
            for v in [*handle, *face, *level, *offset] {
                o.u32(v);
            }
            o.blob(bytes);
            put_answer(&mut o, answer, AnswerShape::Status);
            kind::UNLOCK
        }
        Record::ContextCreate {
            handle,
            render_target,
            depth,
            answer,
        } => {
            for v in [*handle, *render_target, *depth] {
                o.u32(v);
            }
            put_answer(&mut o, answer, AnswerShape::Status);
            kind::CONTEXT_CREATE
        }
        Record::ContextDestroy { handle, answer } => {
            o.u32(*handle);
            put_answer(&mut o, answer, AnswerShape::Status);
            kind::CONTEXT_DESTROY
        }
        Record::DrawPrimitives2 { call: c, answer } => {
            for v in [
                c.context,
                c.flags,
                c.vertex_type,
                c.commands,
                c.command_offset,
                c.command_length,
                c.vertex_surface,
                c.vertex_offset,
                c.vertex_length,
                c.req_vertex_buf_size,
                c.req_command_buf_size,
                c.vertex_size,
            ] {
                o.u32(v);
            }
            o.blob(&c.command_bytes);
            match &c.user_vertices {
                None => o.u32(0),
                Some(v) => {
                    o.u32(1);
                    o.blob(v);
                }
            }
            o.rstates(&c.rstates);
            put_answer(&mut o, answer, AnswerShape::Dp2);
            kind::DRAW_PRIMITIVES2
        }
        Record::Clear2 { call: c, answer } => {
            for v in [c.context, c.flags, c.color, c.depth_bits, c.stencil] {
                o.u32(v);
            }
            o.u32(c.rects.len() as u32);
            for r in &c.rects {
                for v in r {
                    o.u32(*v as u32);
                }
            }
            put_answer(&mut o, answer, AnswerShape::Status);
            kind::CLEAR2
        }
        Record::ValidateTextureStageState {
            context,
            flags,
            reserved,
            answer,
        } => {
            for v in [*context, *flags, *reserved] {
                o.u32(v);
            }
            put_answer(&mut o, answer, AnswerShape::Passes);
            kind::VALIDATE_TSS
        }
        Record::Flip { handle, answer } => {
            o.u32(*handle);
            put_answer(&mut o, answer, AnswerShape::Frame);
            kind::FLIP
        }
        Record::CompleteFlips => kind::COMPLETE_FLIPS,
        Record::Present { handle, answer } => {
            o.u32(*handle);
            put_answer(&mut o, answer, AnswerShape::Frame);
            kind::PRESENT
        }
        Record::CompleteWork => kind::COMPLETE_WORK,
        Record::Submit { call: c, answer } => {
            for v in [
                c.context,
                c.flags,
                c.command_offset,
                c.command_length,
                c.num_allocations,
                c.num_patch_locations,
                c.req_command_buffer_size,
                c.req_allocation_list_size,
                c.req_patch_list_size,
            ] {
                o.u32(v);
            }
            o.blob(&c.command_bytes);
            o.u32(c.allocations.len() as u32);
            for a in &c.allocations {
                for v in [a.handle, a.value, a.surface] {
                    o.u32(v);
                }
            }
            o.u32(c.patches.len() as u32);
            for p in &c.patches {
                for v in [
                    p.allocation_index,
                    p.slot_id,
                    p.driver_id,
                    p.allocation_offset,
                    p.patch_offset,
                    p.split_offset,
                ] {
                    o.u32(v);
                }
            }
            put_answer(&mut o, answer, AnswerShape::Submit);
            kind::SUBMIT
        }
        Record::RenderContextCreate {
            handle,
            engine,
            answer,
        } => {
            o.u32(*handle);
            o.u32(*engine);
            put_answer(&mut o, answer, AnswerShape::Status);
            kind::RENDER_CONTEXT_CREATE
        }
        Record::RenderContextDestroy { handle, answer } => {
            o.u32(*handle);
            put_answer(&mut o, answer, AnswerShape::Status);
            kind::RENDER_CONTEXT_DESTROY
        }
        Record::SetColorKey {
            handle,
            enable,
            low,
            high,
            answer,
        } => {
            for v in [*handle, *enable, *low, *high] {
                o.u32(v);
            }
            put_answer(&mut o, answer, AnswerShape::Status);
            kind::SET_COLOR_KEY
        }
        Record::DxVersion { version } => {
            o.u32(*version);
            kind::DX_VERSION
        }
        Record::AttachedSurface {
            handle,
            texture,
            face,
            level,
            answer,
        } => {
            for v in [*handle, *texture, *face, *level] {
                o.u32(v);
            }
            put_answer(&mut o, answer, AnswerShape::Status);
            kind::ATTACHED_SURFACE
        }
    };
    (code, o.0)
}

/// The file header.
pub fn header() -> Vec<u8> {
    let mut h = MAGIC.to_vec();
    h.extend_from_slice(&VERSION.to_le_bytes());
    h.extend_from_slice(&0u32.to_le_bytes());
    h
}

/// One framed record (type, flags 0, length, payload).
pub fn frame(code: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = Vec::with_capacity(8 + payload.len());
    f.extend_from_slice(&code.to_le_bytes());
    f.extend_from_slice(&0u16.to_le_bytes());
    f.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    f.extend_from_slice(payload);
    f
}

/// The framed END record after `count` records.
pub fn end_record(count: u32) -> Vec<u8> {
    frame(kind::END, &count.to_le_bytes())
}

/// Encodes a whole capture.
pub fn encode(c: &Capture) -> Vec<u8> {
    let mut out = header();
    for r in &c.records {
        let (code, payload) = encode_record(r);
        out.extend_from_slice(&frame(code, &payload));
    }
    out.extend_from_slice(&end_record(c.records.len() as u32));
    out
}

// ====================================================================== decode

/// True when `bytes` starts with the capture magic.
pub fn is_binary_capture(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// A bounded reader over one payload; offsets are absolute in the file.
struct In<'a> {
    b: &'a [u8],
    pos: usize,
    base: u64,
}

type R<T> = Result<T, (u64, LoadErrorKind)>;

impl<'a> In<'a> {
    fn at(&self) -> u64 {
        self.base + self.pos as u64
    }
    fn take(&mut self, n: usize, what: &'static str) -> R<&'a [u8]> {
        let left = self.b.len().saturating_sub(self.pos);
        let end = self.pos.checked_add(n).filter(|e| *e <= self.b.len());
        match end.and_then(|e| self.b.get(self.pos..e)) {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => Err((
                self.at(),
                LoadErrorKind::Truncated {
                    what,
                    need: n as u64,
                    have: left as u64,
                },
            )),
        }
    }
    fn u32(&mut self, what: &'static str) -> R<u32> {
        let s = self.take(4, what)?;
        Ok(u32::from_le_bytes(s.try_into().unwrap_or([0; 4])))
    }
    fn u64(&mut self, what: &'static str) -> R<u64> {
        let s = self.take(8, what)?;
        Ok(u64::from_le_bytes(s.try_into().unwrap_or([0; 8])))
    }
    fn blob(&mut self, what: &'static str) -> R<Vec<u8>> {
        let n = self.u32(what)?;
        Ok(self.take(n as usize, what)?.to_vec())
    }
    /// A `u32` count of `size`-byte entries and the entries' bytes, checked
    /// against the bytes that remain before anything is allocated.
    fn entries(&mut self, size: usize, what: &'static str) -> R<&'a [u8]> {
        let n = self.u32(what)?;
        let bytes = (n as usize).checked_mul(size).ok_or((
            self.at(),
            LoadErrorKind::Truncated {
                what,
                need: u64::from(n).saturating_mul(size as u64),
                have: self.b.len().saturating_sub(self.pos) as u64,
            },
        ))?;
        self.take(bytes, what)
    }
    fn flag(&mut self, what: &'static str) -> R<bool> {
        let at = self.at();
        match self.u32(what)? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err((
                at,
                LoadErrorKind::BadValue {
                    what,
                    value: u64::from(v),
                },
            )),
        }
    }
    fn rstates(&mut self) -> R<Option<Box<[u32; 256]>>> {
        if !self.flag("lpdwRStates present")? {
            return Ok(None);
        }
        let s = self.take(1024, "lpdwRStates")?;
        let mut a = Box::new([0u32; 256]);
        for (slot, c) in a.iter_mut().zip(s.chunks_exact(4)) {
            *slot = u32::from_le_bytes(c.try_into().unwrap_or([0; 4]));
        }
        Ok(Some(a))
    }
    fn answer(&mut self, shape: AnswerShape) -> R<Option<Answer>> {
        if !self.flag("answer present")? {
            return Ok(None);
        }
        let mut a = Answer {
            ddrval: self.u32("ddrval")?,
            ..Answer::default()
        };
        match shape {
            AnswerShape::Status => {}
            AnswerShape::Dp2 => {
                a.error_offset = self.u32("dwErrorOffset")?;
                a.flags = self.u32("dwFlags")?;
                a.rstates = self.rstates()?;
            }
            AnswerShape::Passes => a.passes = self.u32("dwNumPasses")?,
            AnswerShape::Frame => a.checksum = self.u64("checksum")?,
            AnswerShape::Submit => {
                a.sizes = [
                    self.u32("NewCommandBufferSize")?,
                    self.u32("NewAllocationListSize")?,
                    self.u32("NewPatchLocationListSize")?,
                ];
                a.queued = self.u32("QueuedBufferCount")?;
            }
        }
        Ok(Some(a))
    }
}

fn decode_payload(code: u16, p: &mut In<'_>) -> R<Option<Record>> {
    use AnswerShape::*;
    let r = match code {
        kind::CREATE_SURFACE => {
            let handle = p.u32("handle")?;
            let spec = SurfaceSpec {
                kind: p.u32("kind")?,
                format: p.u32("format")?,
                width: p.u32("width")?,
                height: p.u32("height")?,
                depth: p.u32("depth")?,
                mip_levels: p.u32("mip levels")?,
            };
            let init = p.blob("initial contents")?;
            Record::CreateSurface {
                handle,
                spec,
                init,
                answer: p.answer(Status)?,
            }
        }
        kind::DESTROY_SURFACE => Record::DestroySurface {
            handle: p.u32("handle")?,
            answer: p.answer(Status)?,
        },
        kind::LOCK => {
            let handle = p.u32("handle")?;
            let at = p.at();
            let api = match p.u32("lock api")? {
                0 => LockApi::Lock,
                1 => LockApi::LockLevel,
                v => {
                    return Err((
                        at,
                        LoadErrorKind::BadValue {
                            what: "lock api",
                            value: u64::from(v),
                        },
                    ))
                }
            };
            Record::Lock {
                handle,
                api,
                face: p.u32("face")?,
                level: p.u32("level")?,
                flags: p.u32("lock flags")?,
                answer: p.answer(Status)?,
            }
        }
        kind::UNLOCK => Record::Unlock {
            handle: p.u32("handle")?,
            face: p.u32("face")?,
            level: p.u32("level")?,
            offset: p.u32("offset")?,
            bytes: p.blob("bytes written")?,
            answer: p.answer(Status)?,
        },
        kind::CONTEXT_CREATE => Record::ContextCreate {
            handle: p.u32("handle")?,
            render_target: p.u32("render target")?,
            depth: p.u32("depth")?,
            answer: p.answer(Status)?,
        },
        kind::CONTEXT_DESTROY => Record::ContextDestroy {
            handle: p.u32("handle")?,
            answer: p.answer(Status)?,
        },
        kind::DRAW_PRIMITIVES2 => {
            let mut c = Dp2Call {
                context: p.u32("dwhContext")?,
                flags: p.u32("dwFlags")?,
                vertex_type: p.u32("dwVertexType")?,
                commands: p.u32("lpDDCommands")?,
                command_offset: p.u32("dwCommandOffset")?,
                command_length: p.u32("dwCommandLength")?,
                vertex_surface: p.u32("lpDDVertex")?,
                vertex_offset: p.u32("dwVertexOffset")?,
                vertex_length: p.u32("dwVertexLength")?,
                req_vertex_buf_size: p.u32("dwReqVertexBufSize")?,
                req_command_buf_size: p.u32("dwReqCommandBufSize")?,
                vertex_size: p.u32("dwVertexSize")?,
                ..Dp2Call::default()
            };
            c.command_bytes = p.blob("command bytes")?;
            if p.flag("lpVertices present")? {
                c.user_vertices = Some(p.blob("user-memory vertices")?);
            }
            c.rstates = p.rstates()?;
            Record::DrawPrimitives2 {
                call: Box::new(c),
                answer: p.answer(Dp2)?,
            }
        }
        kind::CLEAR2 => {
            let mut c = Clear2Call {
                context: p.u32("dwhContext")?,
                flags: p.u32("dwFlags")?,
                color: p.u32("dwFillColor")?,
                depth_bits: p.u32("dvFillDepth")?,
                stencil: p.u32("dwFillStencil")?,
                rects: Vec::new(),
            };
            let at = p.at();
            let n = p.u32("dwNumRects")?;
            if n > limits::MAX_CLEAR_RECTS {
                return Err((
                    at,
                    LoadErrorKind::TooLarge {
                        what: "dwNumRects",
                        value: u64::from(n),
                        limit: u64::from(limits::MAX_CLEAR_RECTS),
                    },
                ));
            }
            // Checked against the bytes left before allocating.
            let bytes = p.take(n as usize * 16, "rects")?;
            for r in bytes.chunks_exact(16) {
                let mut q = [0i32; 4];
                for (slot, c) in q.iter_mut().zip(r.chunks_exact(4)) {
                    *slot = i32::from_le_bytes(c.try_into().unwrap_or([0; 4]));
                }
                c.rects.push(q);
            }
            Record::Clear2 {
                call: c,
                answer: p.answer(Status)?,
            }
        }
        kind::VALIDATE_TSS => Record::ValidateTextureStageState {
            context: p.u32("dwhContext")?,
            flags: p.u32("dwFlags")?,
            reserved: p.u32("dwReserved")?,
            answer: p.answer(Passes)?,
        },
        kind::FLIP => Record::Flip {
            handle: p.u32("handle")?,
            answer: p.answer(Frame)?,
        },
        kind::COMPLETE_FLIPS => Record::CompleteFlips,
        kind::PRESENT => Record::Present {
            handle: p.u32("handle")?,
            answer: p.answer(Frame)?,
        },
        kind::COMPLETE_WORK => Record::CompleteWork,
        kind::SUBMIT => {
            let mut c = SubmitCall {
                context: p.u32("hContext")?,
                flags: p.u32("Flags")?,
                command_offset: p.u32("CommandOffset")?,
                command_length: p.u32("CommandLength")?,
                num_allocations: p.u32("NumAllocations")?,
                num_patch_locations: p.u32("NumPatchLocations")?,
                req_command_buffer_size: p.u32("NewCommandBufferSize")?,
                req_allocation_list_size: p.u32("NewAllocationListSize")?,
                req_patch_list_size: p.u32("NewPatchLocationListSize")?,
                ..SubmitCall::default()
            };
            c.command_bytes = p.blob("command buffer")?;
            let word = |b: &[u8], i: usize| {
                b.get(i * 4..i * 4 + 4)
                    .and_then(|s| s.try_into().ok())
                    .map_or(0, u32::from_le_bytes)
            };
            c.allocations = p
                .entries(12, "allocation list")?
                .chunks_exact(12)
                .map(|e| SubmitAllocation {
                    handle: word(e, 0),
                    value: word(e, 1),
                    surface: word(e, 2),
                })
                .collect();
            c.patches = p
                .entries(24, "patch-location list")?
                .chunks_exact(24)
                .map(|e| softhal_submit::PatchLocation {
                    allocation_index: word(e, 0),
                    slot_id: word(e, 1),
                    driver_id: word(e, 2),
                    allocation_offset: word(e, 3),
                    patch_offset: word(e, 4),
                    split_offset: word(e, 5),
                })
                .collect();
            Record::Submit {
                call: Box::new(c),
                answer: p.answer(Submit)?,
            }
        }
        kind::RENDER_CONTEXT_CREATE => Record::RenderContextCreate {
            handle: p.u32("handle")?,
            engine: p.u32("engine")?,
            answer: p.answer(Status)?,
        },
        kind::RENDER_CONTEXT_DESTROY => Record::RenderContextDestroy {
            handle: p.u32("handle")?,
            answer: p.answer(Status)?,
        },
        kind::SET_COLOR_KEY => Record::SetColorKey {
            handle: p.u32("handle")?,
            enable: p.u32("enable")?,
            low: p.u32("low")?,
            high: p.u32("high")?,
            answer: p.answer(Status)?,
        },
        kind::DX_VERSION => Record::DxVersion {
            version: p.u32("version")?,
        },
        kind::ATTACHED_SURFACE => Record::AttachedSurface {
            handle: p.u32("handle")?,
            texture: p.u32("texture")?,
            face: p.u32("face")?,
            level: p.u32("level")?,
            answer: p.answer(Status)?,
        },
        _ => return Ok(None),
    };
    Ok(Some(r))
}

/// What the file-level reads name when the file ends inside them (a cut,
/// [`LoadError::is_cut`]); reads inside a payload name its fields.
const HEADER_VERSION: &str = "version";
const HEADER_FLAGS: &str = "header flags";
const RECORD_HEADER: &str = "record header";
const RECORD_PAYLOAD: &str = "record payload";

impl LoadError {
    /// True when the file ends before the capture does: inside the file
    /// header, a record header or a record's payload, or before the end
    /// record. Every record before [`LoadError::record`] is complete
    /// ([`decode_prefix`] returns them). A payload whose own fields run
    /// past its recorded length is not a cut but a malformed record.
    pub fn is_cut(&self) -> bool {
        match &self.kind {
            LoadErrorKind::MissingEnd => true,
            LoadErrorKind::Truncated { what, .. } => {
                [HEADER_VERSION, HEADER_FLAGS, RECORD_HEADER, RECORD_PAYLOAD].contains(what)
            }
            _ => false,
        }
    }
}

/// Decodes a binary capture (untrusted).
pub fn decode(bytes: &[u8]) -> Result<Capture, LoadError> {
    let mut records = Vec::new();
    decode_into(bytes, &mut records)?;
    Ok(Capture { records })
}

/// Decodes a binary capture that may have been cut (untrusted): every
/// complete record before the cut, and the cut ([`LoadError::is_cut`]) if
/// the file ends early. Any other problem fails the whole load, as
/// [`decode`] does.
pub fn decode_prefix(bytes: &[u8]) -> Result<(Capture, Option<LoadError>), LoadError> {
    let mut records = Vec::new();
    match decode_into(bytes, &mut records) {
        Ok(()) => Ok((Capture { records }, None)),
        Err(e) if e.is_cut() => Ok((Capture { records }, Some(e))),
        Err(e) => Err(e),
    }
}

/// Decodes into `records`; on an error, `records` holds every record
/// decoded before it.
fn decode_into(bytes: &[u8], records: &mut Vec<Record>) -> Result<(), LoadError> {
    let err = |record: usize, offset: u64, kind: LoadErrorKind| LoadError {
        record,
        offset,
        kind,
    };
    if bytes.len() as u64 > limits::MAX_CAPTURE_BYTES {
        return Err(err(
            0,
            0,
            LoadErrorKind::TooLarge {
                what: "capture size",
                value: bytes.len() as u64,
                limit: limits::MAX_CAPTURE_BYTES,
            },
        ));
    }
    let mut h = In {
        b: bytes,
        pos: 0,
        base: 0,
    };
    let magic = h
        .take(8, "magic")
        .map_err(|_| err(0, 0, LoadErrorKind::BadMagic))?;
    if magic != MAGIC {
        return Err(err(0, 0, LoadErrorKind::BadMagic));
    }
    let version = h.u32(HEADER_VERSION).map_err(|(o, k)| err(0, o, k))?;
    if version != VERSION {
        return Err(err(
            0,
            8,
            LoadErrorKind::UnsupportedVersion {
                found: version,
                supported: VERSION,
            },
        ));
    }
    let flags = h.u32(HEADER_FLAGS).map_err(|(o, k)| err(0, o, k))?;
    if flags != 0 {
        return Err(err(0, 12, LoadErrorKind::BadHeaderFlags(flags)));
    }
    let mut index = 0usize;
    loop {
        let start = h.at();
        if h.pos >= bytes.len() {
            return Err(err(index, start, LoadErrorKind::MissingEnd));
        }
        if index > limits::MAX_RECORDS {
            return Err(err(
                index,
                start,
                LoadErrorKind::TooLarge {
                    what: "record count",
                    value: index as u64,
                    limit: limits::MAX_RECORDS as u64,
                },
            ));
        }
        let e = |(o, k): (u64, LoadErrorKind)| err(index, o, k);
        let hdr = h.take(8, RECORD_HEADER).map_err(e)?;
        let code = u16::from_le_bytes([
            hdr.first().copied().unwrap_or(0),
            hdr.get(1).copied().unwrap_or(0),
        ]);
        let rflags = u16::from_le_bytes([
            hdr.get(2).copied().unwrap_or(0),
            hdr.get(3).copied().unwrap_or(0),
        ]);
        let len = u32::from_le_bytes(
            hdr.get(4..8)
                .and_then(|s| s.try_into().ok())
                .unwrap_or([0; 4]),
        );
        if rflags & !FLAG_SKIPPABLE != 0 {
            return Err(err(index, start + 2, LoadErrorKind::BadRecordFlags(rflags)));
        }
        if u64::from(len) > limits::MAX_RECORD_BYTES {
            return Err(err(
                index,
                start + 4,
                LoadErrorKind::TooLarge {
                    what: "record length",
                    value: u64::from(len),
                    limit: limits::MAX_RECORD_BYTES,
                },
            ));
        }
        let payload_at = h.at();
        let payload = h.take(len as usize, RECORD_PAYLOAD).map_err(e)?;
        let mut p = In {
            b: payload,
            pos: 0,
            base: payload_at,
        };
        if code == kind::END {
            let claimed = p.u32("record count").map_err(e)?;
            if p.pos != payload.len() {
                return Err(err(
                    index,
                    p.at(),
                    LoadErrorKind::PayloadTooLong((payload.len() - p.pos) as u64),
                ));
            }
            if claimed as usize != index {
                return Err(err(
                    index,
                    payload_at,
                    LoadErrorKind::CountMismatch {
                        claimed,
                        actual: index,
                    },
                ));
            }
            let rest = bytes.len().saturating_sub(h.pos);
            if rest != 0 {
                return Err(err(
                    index + 1,
                    h.at(),
                    LoadErrorKind::TrailingBytes(rest as u64),
                ));
            }
            return Ok(());
        }
        match decode_payload(code, &mut p).map_err(e)? {
            Some(r) => {
                if p.pos != payload.len() {
                    return Err(err(
                        index,
                        p.at(),
                        LoadErrorKind::PayloadTooLong((payload.len() - p.pos) as u64),
                    ));
                }
                records.push(r);
            }
            None if rflags & FLAG_SKIPPABLE != 0 => {}
            None => return Err(err(index, start, LoadErrorKind::UnknownRecord(code))),
        }
        index += 1;
    }
}
