//! Shaders on the GPU side: the shader objects, the bound programs and the
//! constants of one GPU context.
//!
//! In: verified CREATE_SHADER, DESTROY_SHADER, SET_SHADER and
//! SET_CONSTANTS packets (a shader here was validated by the kernel from
//! the packet's tokens and prepared to run once, [`ShaderObject::new`]).
//! Out: for each draw, the [`Programs`] the pipeline runs, with the
//! constants bound to each program (cached until the program or the
//! constants change, so a draw with an unchanged binding prepares
//! nothing). Guarantees: at most `limits::MAX_SHADER_OBJECTS` objects and
//! `limits::MAX_SHADER_CONTEXT_DWORDS` token DWORDs per context; a draw
//! whose bound id names no object, or an object of the other stage, is
//! refused (a fault), never run; a context with no shader bound costs a
//! draw one comparison.

use crate::limits;
use crate::packet::{ConstantBank, ShaderStage};
use softhal_pipeline::program::{
    PixelProgram, Programs, ShaderInput, VertexProgram, VERTEX_SAMPLERS,
};
use softhal_pipeline::texture::Texture;
use softhal_shader::exec::{BoundConstants, Constants, Program};
use softhal_shader::Validated;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A validated shader prepared to run, shared by the packet that created
/// it and the context that keeps it.
#[derive(Debug, Clone)]
pub(crate) struct ShaderObject {
    program: Arc<Program>,
    /// Its token DWORDs (counted against the context's budget).
    dwords: usize,
}

impl ShaderObject {
    /// Prepares a validated shader of `dwords` tokens.
    pub(crate) fn new(shader: Validated, dwords: usize) -> ShaderObject {
        ShaderObject {
            program: Arc::new(Program::new(shader)),
            dwords,
        }
    }

    fn stage(&self) -> ShaderStage {
        if self.program.profile().is_vertex() {
            ShaderStage::Vertex
        } else {
            ShaderStage::Pixel
        }
    }
}

/// Two objects are equal when they are the same prepared shader.
impl PartialEq for ShaderObject {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.program, &other.program)
    }
}

/// The shader half of a GPU context.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ShaderState {
    objects: BTreeMap<u32, ShaderObject>,
    /// Token DWORDs of `objects`.
    dwords: usize,
    /// The object bound at each stage (0: fixed function).
    bound: [u32; 2],
    /// The constants of each stage as SET_CONSTANTS wrote them.
    constants: [Constants; 2],
    /// The bound program's constants, bound (`None`: to be bound at the
    /// next draw).
    prepared: [Option<BoundConstants>; 2],
}

impl ShaderState {
    /// Is a shader bound at either stage?
    #[inline]
    pub(crate) fn any_bound(&self) -> bool {
        self.bound != [0, 0]
    }

    /// CREATE_SHADER; false (a fault) past the context's limits.
    pub(crate) fn create(&mut self, id: u32, object: &ShaderObject) -> bool {
        let old = self.objects.get(&id).map_or(0, |o| o.dwords);
        let dwords = self
            .dwords
            .saturating_sub(old)
            .saturating_add(object.dwords);
        let count = self
            .objects
            .len()
            .saturating_add(usize::from(!self.objects.contains_key(&id)));
        if count > limits::MAX_SHADER_OBJECTS || dwords > limits::MAX_SHADER_CONTEXT_DWORDS {
            return false;
        }
        self.objects.insert(id, object.clone());
        self.dwords = dwords;
        self.unprepare(id);
        true
    }

    /// DESTROY_SHADER; false (a fault) for an unknown id. A stage still
    /// bound to it draws nothing until it is bound again.
    pub(crate) fn destroy(&mut self, id: u32) -> bool {
        match self.objects.remove(&id) {
            Some(o) => {
                self.dwords = self.dwords.saturating_sub(o.dwords);
                self.unprepare(id);
                true
            }
            None => false,
        }
    }

    fn unprepare(&mut self, id: u32) {
        for (b, p) in self.bound.iter().zip(&mut self.prepared) {
            if *b == id {
                *p = None;
            }
        }
    }

    /// SET_SHADER.
    pub(crate) fn bind(&mut self, stage: ShaderStage, id: u32) {
        let i = stage.index();
        if let (Some(b), Some(p)) = (self.bound.get_mut(i), self.prepared.get_mut(i)) {
            if *b != id {
                *b = id;
                *p = None;
            }
        }
    }

    /// SET_CONSTANTS of registers `first..` (inside the bank: verified).
    pub(crate) fn set_constants(
        &mut self,
        stage: ShaderStage,
        bank: ConstantBank,
        first: u32,
        data: &[u32],
    ) {
        let i = stage.index();
        let (Some(c), Some(p)) = (self.constants.get_mut(i), self.prepared.get_mut(i)) else {
            return;
        };
        *p = None;
        let first = first as usize;
        match bank {
            ConstantBank::Float => write(&mut c.float, first, data, |v: &[u32; 4]| {
                [v[0], v[1], v[2], v[3]].map(f32::from_bits)
            }),
            ConstantBank::Int => write(&mut c.int, first, data, |v: &[u32; 4]| {
                [v[0], v[1], v[2], v[3]].map(|x| x as i32)
            }),
            ConstantBank::Bool => write(&mut c.bool, first, data, |v: &[u32; 1]| v[0] != 0),
        }
    }

    /// Binds the constants of the bound programs (when they changed) and
    /// returns the programs of a draw with `inputs` as the vertex inputs;
    /// `None` when a bound id names no object of its stage.
    pub(crate) fn programs<'s>(
        &'s mut self,
        inputs: &'s [ShaderInput],
        vertex_textures: [Option<&'s Texture>; VERTEX_SAMPLERS],
    ) -> Option<Programs<'s>> {
        let mut programs: [Option<&Program>; 2] = [None, None];
        for (i, stage) in [ShaderStage::Vertex, ShaderStage::Pixel]
            .into_iter()
            .enumerate()
        {
            let id = self.bound.get(i).copied().unwrap_or(0);
            if id == 0 {
                continue;
            }
            let o = self.objects.get(&id).filter(|o| o.stage() == stage)?;
            let (Some(p), Some(c)) = (self.prepared.get_mut(i), self.constants.get(i)) else {
                return None;
            };
            if p.is_none() {
                *p = Some(o.program.bind(c));
            }
            if let Some(slot) = programs.get_mut(i) {
                *slot = Some(&o.program);
            }
        }
        let [vp, pp] = programs;
        let [vc, pc] = &self.prepared;
        Some(Programs {
            vertex: match (vp, vc) {
                (Some(program), Some(constants)) => VertexProgram::Shader {
                    program,
                    constants,
                    inputs,
                    textures: vertex_textures,
                },
                _ => VertexProgram::FixedFunction,
            },
            pixel: match (pp, pc) {
                (Some(program), Some(constants)) => PixelProgram::Shader { program, constants },
                _ => PixelProgram::FixedFunction,
            },
        })
    }

    /// Is a vertex shader bound?
    pub(crate) fn vertex_bound(&self) -> bool {
        self.bound.first().is_some_and(|b| *b != 0)
    }
}

/// Writes registers `first..` of `bank` from `data`, `per` DWORDs a
/// register (the bank grows to hold them).
fn write<T: Default + Clone, const N: usize>(
    bank: &mut Vec<T>,
    first: usize,
    data: &[u32],
    from: impl Fn(&[u32; N]) -> T,
) {
    let values = data
        .chunks_exact(N)
        .filter_map(|c| <&[u32; N]>::try_from(c).ok());
    for (r, v) in (first..).zip(values) {
        if bank.len() <= r {
            bank.resize(r.saturating_add(1), T::default());
        }
        if let Some(slot) = bank.get_mut(r) {
            *slot = from(v);
        }
    }
}
