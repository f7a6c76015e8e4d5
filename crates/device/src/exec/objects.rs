//! Object commands: CREATE/DELETE of DX8 vertex shaders, DX9 vertex
//! declarations, vertex shader functions, pixel shaders and queries.
//!
//! In: the records (shader tokens, declarations, query types). Out: objects
//! in the context's maps, by handle. Guarantees: every record is validated
//! (token streams, declarations, query types) and the command's new
//! objects are counted against the cap before any is stored; shader bytes
//! stay within `limits::MAX_SHADER_CACHE_BYTES` per context; DELETE of an
//! unknown handle fails before anything is deleted. Each stored shader
//! function gets a serial of its own (the id of its GPU object); the GPU
//! objects of shaders deleted or replaced are released
//! ([`crate::umd::Gpu::forget_shaders`]).

use super::Exec;
use crate::context::{Query, QueryKind, VertexShader8};
use crate::error::{DeviceError, Result};
use crate::limits;
use crate::shader::{self, ShaderCode, ShaderKind};
use softhal_wire::command::{CodeHead, ShaderCodeRecord};
use softhal_wire::names::QueryType;
use softhal_wire::{Command, Records};
use std::collections::BTreeMap;

impl<'c> Exec<'_, 'c> {
    /// CREATE/DELETE of shaders, declarations and queries.
    pub(super) fn object_command(&mut self, cmd: &Command<'c>) -> Result<()> {
        use Command as C;
        match *cmd {
            C::CreateVertexShader(recs) => {
                self.check_shader_budget(recs.as_bytes().len())?;
                let mut v = Vec::new();
                for r in recs.iter() {
                    let h = r.head.handle.get();
                    let decl = shader::parse_dx8_decl(r.decl, !r.code.is_empty())?;
                    let code = if r.code.is_empty() {
                        None
                    } else {
                        Some(shader::validate_shader(r.code, ShaderKind::Vertex)?)
                    };
                    v.push((h, VertexShader8 { decl, code }));
                }
                check_cap(
                    &self.ctx.vertex_shaders,
                    &v,
                    "vertex shaders",
                    limits::MAX_SHADER_OBJECTS,
                )?;
                for (_, s) in &mut v {
                    if let Some(c) = &mut s.code {
                        c.serial = self.ctx.next_shader_serial();
                    }
                }
                let old = insert_objects(&mut self.ctx.vertex_shaders, v);
                self.forget(old.iter().filter_map(|s| s.code.as_ref()));
                Ok(())
            }
            C::DeleteVertexShader(recs) => {
                let old = delete_objects(
                    &mut self.ctx.vertex_shaders,
                    recs.iter().map(|r| r.handle.get()),
                    "vertex shader",
                )?;
                self.forget(old.iter().filter_map(|s| s.code.as_ref()));
                Ok(())
            }
            C::CreateVertexShaderDecl(recs) => {
                self.check_shader_budget(recs.as_bytes().len())?;
                let mut v = Vec::new();
                for r in recs.iter() {
                    let els: Vec<[u32; 6]> = r
                        .elements
                        .iter()
                        .map(|e| {
                            [
                                u32::from(e.stream.get()),
                                u32::from(e.offset.get()),
                                u32::from(e.decl_type),
                                u32::from(e.method),
                                u32::from(e.usage),
                                u32::from(e.usage_index),
                            ]
                        })
                        .collect();
                    v.push((r.head.handle.get(), shader::parse_decl9(&els)?));
                }
                check_cap(
                    &self.ctx.decls,
                    &v,
                    "vertex declarations",
                    limits::MAX_SHADER_OBJECTS,
                )?;
                insert_objects(&mut self.ctx.decls, v);
                Ok(())
            }
            C::DeleteVertexShaderDecl(recs) => delete_objects(
                &mut self.ctx.decls,
                recs.iter().map(|r| r.handle.get()),
                "vertex declaration",
            )
            .map(drop),
            C::CreateVertexShaderFunc(recs) => self.create_code_objects(&recs, ShaderKind::Vertex),
            C::DeleteVertexShaderFunc(recs) => {
                let old = delete_objects(
                    &mut self.ctx.vs_funcs,
                    recs.iter().map(|r| r.handle.get()),
                    "vertex shader function",
                )?;
                self.forget(old.iter());
                Ok(())
            }
            C::CreatePixelShader(recs) => self.create_code_objects(&recs, ShaderKind::Pixel),
            C::DeletePixelShader(recs) => {
                let old = delete_objects(
                    &mut self.ctx.pixel_shaders,
                    recs.iter().map(|r| r.handle.get()),
                    "pixel shader",
                )?;
                self.forget(old.iter());
                Ok(())
            }

            C::CreateQuery(recs) => {
                let mut v = Vec::new();
                for r in recs {
                    let kind = match QueryType::from_raw(r.query_type.get()) {
                        Some(QueryType::VCache) => QueryKind::VCache,
                        Some(QueryType::Event) => QueryKind::Event,
                        Some(QueryType::Occlusion) => QueryKind::Occlusion,
                        _ => {
                            return Err(DeviceError::Unsupported(
                                "query type (EVENT, OCCLUSION and VCACHE only)",
                            ))
                        }
                    };
                    v.push((
                        r.query_id.get(),
                        Query {
                            kind,
                            begun_at: None,
                        },
                    ));
                }
                check_cap(&self.ctx.queries, &v, "queries", limits::MAX_QUERIES)?;
                insert_objects(&mut self.ctx.queries, v);
                Ok(())
            }
            C::DeleteQuery(recs) => {
                let ids: Vec<u32> = recs.iter().map(|r| r.query_id.get()).collect();
                delete_objects(&mut self.ctx.queries, ids.iter().copied(), "query")?;
                self.ctx.responses.retain(|r| !ids.contains(&r.query_id));
                Ok(())
            }
            _ => Err(super::unsupported_opcode()),
        }
    }

    /// CREATEVERTEXSHADERFUNC / CREATEPIXELSHADER: validated token streams
    /// stored as functions of `kind`.
    fn create_code_objects<H: CodeHead>(
        &mut self,
        recs: &Records<'_, ShaderCodeRecord<'_, H>>,
        kind: ShaderKind,
    ) -> Result<()> {
        self.check_shader_budget(recs.as_bytes().len())?;
        let mut v = validated_code_objects(recs, kind)?;
        let (map, what) = match kind {
            ShaderKind::Vertex => (&self.ctx.vs_funcs, "vertex shader functions"),
            ShaderKind::Pixel => (&self.ctx.pixel_shaders, "pixel shaders"),
        };
        check_cap(map, &v, what, limits::MAX_SHADER_OBJECTS)?;
        for (_, c) in &mut v {
            c.serial = self.ctx.next_shader_serial();
        }
        let map = match kind {
            ShaderKind::Vertex => &mut self.ctx.vs_funcs,
            ShaderKind::Pixel => &mut self.ctx.pixel_shaders,
        };
        let old = insert_objects(map, v);
        self.forget(old.iter());
        Ok(())
    }

    /// Releases the GPU objects of shader functions no longer stored.
    fn forget<'s>(&mut self, gone: impl Iterator<Item = &'s ShaderCode>) {
        let serials: Vec<u32> = gone.map(|c| c.serial).collect();
        if !serials.is_empty() {
            self.gpu.forget_shaders(self.ctx_h, &serials);
        }
    }

    /// Fails when storing `more` bytes of tokens would exceed the
    /// per-context budget.
    fn check_shader_budget(&self, more: usize) -> Result<()> {
        // Byte counts saturate: a saturated total is over the cap.
        let c = &*self.ctx;
        let held = c
            .vertex_shaders
            .values()
            .map(|s| {
                let consts: usize = s.decl.constants.iter().map(|(_, d)| d.len()).sum();
                s.code
                    .as_ref()
                    .map_or(0, ShaderCode::bytes)
                    .saturating_add(consts.saturating_mul(4))
                    .saturating_add(64)
            })
            .chain(c.vs_funcs.values().map(ShaderCode::bytes))
            .chain(c.pixel_shaders.values().map(ShaderCode::bytes))
            .chain(
                c.decls
                    .values()
                    .map(|d| d.elements.len().saturating_mul(24)),
            )
            .fold(0usize, usize::saturating_add);
        if held.saturating_add(more) > limits::MAX_SHADER_CACHE_BYTES {
            return Err(DeviceError::Limit {
                what: "shader bytes per context",
                max: limits::MAX_SHADER_CACHE_BYTES as u64,
            });
        }
        Ok(())
    }
}

/// Fails when storing `v`'s new handles would take `map` past `cap`.
fn check_cap<T>(
    map: &BTreeMap<u32, T>,
    v: &[(u32, T)],
    what: &'static str,
    cap: usize,
) -> Result<()> {
    let new = v.iter().filter(|(h, _)| !map.contains_key(h)).count();
    if map.len().saturating_add(new) > cap {
        return Err(DeviceError::Limit {
            what,
            max: cap as u64,
        });
    }
    Ok(())
}

/// Stores `v`'s `(handle, object)` pairs (after [`check_cap`]), replacing
/// an object of the same handle; returns the objects replaced.
fn insert_objects<T>(map: &mut BTreeMap<u32, T>, v: Vec<(u32, T)>) -> Vec<T> {
    v.into_iter()
        .filter_map(|(h, o)| map.insert(h, o))
        .collect()
}

/// Deletes the objects of `handles`, unless one of them does not exist;
/// returns them.
fn delete_objects<T>(
    map: &mut BTreeMap<u32, T>,
    handles: impl Iterator<Item = u32> + Clone,
    what: &'static str,
) -> Result<Vec<T>> {
    for h in handles.clone() {
        if !map.contains_key(&h) {
            return Err(DeviceError::BadHandle { handle: h, what });
        }
    }
    Ok(handles.filter_map(|h| map.remove(&h)).collect())
}

/// Validates the token stream of every CREATEPIXELSHADER /
/// CREATEVERTEXSHADERFUNC record and returns `(handle, code)` pairs.
fn validated_code_objects<H: CodeHead>(
    recs: &Records<'_, ShaderCodeRecord<'_, H>>,
    kind: ShaderKind,
) -> Result<Vec<(u32, ShaderCode)>, DeviceError> {
    let mut v = Vec::new();
    for r in recs.iter() {
        v.push((r.head.handle(), shader::validate_shader(r.code, kind)?));
    }
    Ok(v)
}
