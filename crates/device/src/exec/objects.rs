//! Object commands: CREATE/DELETE of DX8 vertex shaders, DX9 vertex
//! declarations, vertex shader functions, pixel shaders and queries.
//!
//! In: the records (shader tokens, declarations, query types). Out: objects
//! in the context's maps, by handle. Guarantees: every record is validated
//! (token streams, declarations, query types) and the command's new
//! objects are counted against the cap before any is stored; shader bytes
//! stay within `limits::MAX_SHADER_CACHE_BYTES` per context; DELETE of an
//! unknown handle fails before anything is deleted.

use super::Exec;
use crate::context::{Query, QueryKind, VertexShader8};
use crate::error::{DeviceError, Result};
use crate::limits;
use crate::shader::{self, ShaderKind};
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
                    let decl = shader::parse_dx8_decl(r.decl)?;
                    if !r.code.is_empty() {
                        shader::validate_shader(r.code, ShaderKind::Vertex)?;
                    }
                    v.push((
                        h,
                        VertexShader8 {
                            decl,
                            code: r.code.to_vec(),
                        },
                    ));
                }
                insert_objects(
                    &mut self.ctx.vertex_shaders,
                    v,
                    "vertex shaders",
                    limits::MAX_SHADER_OBJECTS,
                )
            }
            C::DeleteVertexShader(recs) => delete_objects(
                &mut self.ctx.vertex_shaders,
                recs.iter().map(|r| r.handle.get()),
                "vertex shader",
            ),
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
                insert_objects(
                    &mut self.ctx.decls,
                    v,
                    "vertex declarations",
                    limits::MAX_SHADER_OBJECTS,
                )
            }
            C::DeleteVertexShaderDecl(recs) => delete_objects(
                &mut self.ctx.decls,
                recs.iter().map(|r| r.handle.get()),
                "vertex declaration",
            ),
            C::CreateVertexShaderFunc(recs) => self.create_code_objects(&recs, ShaderKind::Vertex),
            C::DeleteVertexShaderFunc(recs) => delete_objects(
                &mut self.ctx.vs_funcs,
                recs.iter().map(|r| r.handle.get()),
                "vertex shader function",
            ),
            C::CreatePixelShader(recs) => self.create_code_objects(&recs, ShaderKind::Pixel),
            C::DeletePixelShader(recs) => delete_objects(
                &mut self.ctx.pixel_shaders,
                recs.iter().map(|r| r.handle.get()),
                "pixel shader",
            ),

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
                insert_objects(&mut self.ctx.queries, v, "queries", limits::MAX_QUERIES)
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
        let v = validated_code_objects(recs, kind)?;
        let (map, what) = match kind {
            ShaderKind::Vertex => (&mut self.ctx.vs_funcs, "vertex shader functions"),
            ShaderKind::Pixel => (&mut self.ctx.pixel_shaders, "pixel shaders"),
        };
        insert_objects(map, v, what, limits::MAX_SHADER_OBJECTS)
    }

    /// Fails when storing `more` bytes of tokens would exceed the
    /// per-context budget.
    fn check_shader_budget(&self, more: usize) -> Result<()> {
        // Byte counts saturate: a saturated total is over the cap.
        let c = &*self.ctx;
        let held = c
            .vertex_shaders
            .values()
            .map(|s| s.code.len().saturating_add(64))
            .chain(c.vs_funcs.values().map(Vec::len))
            .chain(c.pixel_shaders.values().map(Vec::len))
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

/// Stores `v`'s `(handle, object)` pairs (replacing an object of the same
/// handle), unless the new handles would take `map` past `cap`.
fn insert_objects<T>(
    map: &mut BTreeMap<u32, T>,
    v: Vec<(u32, T)>,
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
    for (h, o) in v {
        map.insert(h, o);
    }
    Ok(())
}

/// Deletes the objects of `handles`, unless one of them does not exist.
fn delete_objects<T>(
    map: &mut BTreeMap<u32, T>,
    handles: impl Iterator<Item = u32> + Clone,
    what: &'static str,
) -> Result<()> {
    for h in handles.clone() {
        if !map.contains_key(&h) {
            return Err(DeviceError::BadHandle { handle: h, what });
        }
    }
    for h in handles {
        map.remove(&h);
    }
    Ok(())
}

/// Validates the token stream of every CREATEPIXELSHADER /
/// CREATEVERTEXSHADERFUNC record and returns `(handle, tokens)` pairs.
fn validated_code_objects<H: CodeHead>(
    recs: &Records<'_, ShaderCodeRecord<'_, H>>,
    kind: ShaderKind,
) -> Result<Vec<(u32, Vec<u8>)>, DeviceError> {
    let mut v = Vec::new();
    for r in recs.iter() {
        shader::validate_shader(r.code, kind)?;
        v.push((r.head.handle(), r.code.to_vec()));
    }
    Ok(v)
}
