//! State commands: RENDERSTATE, TEXTURESTAGESTATE, VIEWPORTINFO, ZRANGE,
//! WINFO, SETMATERIAL, CREATELIGHT, SETLIGHT, SETTRANSFORM,
//! MULTIPLYTRANSFORM, SETCLIPPLANE, SETSCISSORRECT, the bound shader
//! functions (SETVERTEXSHADERFUNC, SETPIXELSHADER) and their constants.
//!
//! In: the command's records. Out: the change in the state that state
//! commands target: the block being recorded between STATESET BEGIN and
//! END (which also records the [`StateKey`]s it now holds), else the
//! context's (and, under D3DHALDP2_EXECUTEBUFFER, the render states as
//! honoured in `lpdwRStates`). Guarantee: every state command, here and in
//! `stream`, goes through [`Exec::write_state`], which validates every
//! record before it writes the first, so a failing command changes
//! nothing; the [`StateWriter`] it writes with is the one place that
//! knows where state goes and what a write must record.

use super::{Exec, EXECUTEBUFFER};
use crate::context::StateKey;
use crate::error::{check_below, range, DeviceError, Result};
use crate::limits;
use crate::state::{self, DeviceState, LightSlot};
use softhal_wire::command::{SetLightRecord, ShaderConstBRecord, ShaderConstRecord};
use softhal_wire::names::{LightType, RenderStateType as Rs, SetLightDataType};
use softhal_wire::structs::{D3dLight7, Dp2RenderState, F32Le};
use softhal_wire::{Command, Records};
use std::collections::{BTreeMap, BTreeSet};

/// Where state commands write, and the bookkeeping every write needs.
pub(super) struct StateWriter<'a> {
    /// The block being recorded, or the context's state.
    state: &'a mut DeviceState,
    /// The keys of the block being recorded (`None`: not recording).
    keys: Option<&'a mut BTreeSet<StateKey>>,
    /// `lpdwRStates`, when the call has D3DHALDP2_EXECUTEBUFFER and no
    /// block is being recorded.
    rstates: Option<&'a mut [u32; 256]>,
}

impl StateWriter<'_> {
    /// The state being written (for writes that read it).
    pub(super) fn state(&self) -> &DeviceState {
        self.state
    }

    /// Changes the piece of state `key` names with `write`, and records
    /// `key` in the block being recorded.
    pub(super) fn set(&mut self, key: StateKey, write: impl FnOnce(&mut DeviceState)) {
        write(self.state);
        if let Some(k) = self.keys.as_deref_mut() {
            k.insert(key);
        }
    }

    /// Sets render state `s` to `v` (as honoured) with its legacy side
    /// effects, records it, and shows it in `lpdwRStates`.
    pub(super) fn render_state(&mut self, s: u32, v: u32) {
        // The only failure is `s` ≥ MAX_RENDER_STATES, which every caller
        // has ruled out.
        if self.state.set_render_state(s, v).is_err() {
            return;
        }
        if let Some(k) = self.keys.as_deref_mut() {
            k.insert(StateKey::Render(s));
        }
        if let Some(slot) = self
            .rstates
            .as_deref_mut()
            .and_then(|a| a.get_mut(s as usize))
        {
            *slot = v;
        }
    }
}

/// Fails (naming the first value) unless both values are finite.
fn finite_pair(what: &'static str, a: F32Le, b: F32Le) -> Result<()> {
    if a.get().is_finite() && b.get().is_finite() {
        Ok(())
    } else {
        Err(DeviceError::BadValue {
            what,
            value: a.bits(),
        })
    }
}

/// Fails unless `h` is 0 (none bound) or a handle of `map`.
fn none_or_known<T>(map: &BTreeMap<u32, T>, h: u32, what: &'static str) -> Result<()> {
    if h != 0 && !map.contains_key(&h) {
        return Err(DeviceError::BadHandle { handle: h, what });
    }
    Ok(())
}

/// The 26 DWORDs of a D3DLIGHT7, as a light slot stores them.
fn light_bits(l: &D3dLight7) -> [u32; 26] {
    let mut out = [0u32; 26];
    for (o, c) in out
        .iter_mut()
        .zip(zerocopy::IntoBytes::as_bytes(l).chunks_exact(4))
    {
        *o = crate::le_u32(c);
    }
    out
}

impl<'c> Exec<'_, 'c> {
    /// The writer of the state that state commands change: the block being
    /// recorded, or the context's state (with `lpdwRStates` under
    /// D3DHALDP2_EXECUTEBUFFER).
    pub(super) fn state_writer(&mut self) -> StateWriter<'_> {
        let exec_buffer = self.call.flags & EXECUTEBUFFER != 0;
        match &mut self.ctx.recording {
            Some((_, b)) => StateWriter {
                state: &mut b.values,
                keys: Some(&mut b.keys),
                rstates: None,
            },
            None => StateWriter {
                state: &mut self.ctx.state,
                keys: None,
                rstates: if exec_buffer {
                    self.call.rstates.as_deref_mut()
                } else {
                    None
                },
            },
        }
    }

    /// The state being read by validation of state commands.
    fn target_ref(&self) -> &DeviceState {
        match &self.ctx.recording {
            Some((_, b)) => &b.values,
            None => &self.ctx.state,
        }
    }

    /// Runs a state command: `check` validates every record, then (only if
    /// all pass) `write` applies each, in order, through the state writer.
    pub(super) fn write_state<I>(
        &mut self,
        recs: I,
        mut check: impl FnMut(&Self, I::Item) -> Result<()>,
        mut write: impl FnMut(&mut StateWriter<'_>, I::Item),
    ) -> Result<()>
    where
        I: IntoIterator + Clone,
    {
        for r in recs.clone() {
            check(self, r)?;
        }
        let mut w = self.state_writer();
        for r in recs {
            write(&mut w, r);
        }
        Ok(())
    }

    /// The state commands.
    pub(super) fn state_command(&mut self, cmd: &Command<'c>) -> Result<()> {
        use Command as C;
        match *cmd {
            C::RenderState(recs) => self.render_states(recs),
            C::TextureStageState(recs) => {
                let dx = self.ctx.dx_version;
                self.write_state(
                    recs,
                    |_, r| {
                        // 0–15, D3DDMAPSAMPLER or D3DVERTEXTEXTURESAMPLER0–3.
                        if state::stage_of(u32::from(r.stage.get())).is_none() {
                            check_below(
                                "wStage",
                                u64::from(r.stage.get()),
                                u64::from(limits::PIXEL_SAMPLERS),
                            )?;
                        }
                        check_below(
                            "TSState",
                            u64::from(r.state.get()),
                            u64::from(limits::TSS_PER_STAGE),
                        )
                    },
                    |w, r| {
                        let Some(Some(s)) = state::stage_of(u32::from(r.stage.get())) else {
                            return;
                        };
                        let writes = state::texture_stage_writes(
                            u32::from(r.state.get()),
                            r.value.get(),
                            dx,
                        );
                        for (t, v) in writes {
                            w.set(StateKey::TextureStage(s, t), |st| {
                                if let Some(slot) = st
                                    .texture_stages
                                    .get_mut(s as usize)
                                    .and_then(|a| a.get_mut(t as usize))
                                {
                                    *slot = v;
                                }
                            });
                        }
                    },
                )
            }
            C::ViewportInfo(recs) => self.write_state(
                recs,
                |_, _| Ok(()),
                |w, v| {
                    w.set(StateKey::Viewport, |st| {
                        st.viewport.x = v.x.get();
                        st.viewport.y = v.y.get();
                        st.viewport.width = v.width.get();
                        st.viewport.height = v.height.get();
                    });
                },
            ),
            C::ZRange(recs) => self.write_state(
                recs,
                |_, r| finite_pair("ZRANGE", r.min_z, r.max_z),
                |w, r| {
                    w.set(StateKey::Viewport, |st| {
                        st.viewport.min_z = r.min_z.get();
                        st.viewport.max_z = r.max_z.get();
                    });
                },
            ),
            C::WInfo(recs) => self.write_state(
                recs,
                |_, r| finite_pair("WINFO", r.w_near, r.w_far),
                |w, r| {
                    w.set(StateKey::WInfo, |st| {
                        st.w_range = (r.w_near.get(), r.w_far.get());
                    });
                },
            ),
            C::SetMaterial(recs) => self.write_state(
                recs,
                |_, _| Ok(()),
                |w, m| {
                    let mut bits = [0u32; 17];
                    for (o, c) in bits
                        .iter_mut()
                        .zip(zerocopy::IntoBytes::as_bytes(m).chunks_exact(4))
                    {
                        *o = crate::le_u32(c);
                    }
                    w.set(StateKey::Material, |st| st.material = Some(bits));
                },
            ),
            C::CreateLight(recs) => self.write_state(
                recs,
                |_, r| {
                    check_below(
                        "CREATELIGHT dwIndex",
                        u64::from(r.index.get()),
                        u64::from(limits::MAX_LIGHTS),
                    )
                },
                |w, r| {
                    let i = r.index.get() as usize;
                    w.set(StateKey::Light(i as u32), |st| {
                        if let Some(len) = i.checked_add(1).filter(|&n| st.lights.len() < n) {
                            st.lights.resize(
                                len,
                                LightSlot {
                                    enabled: false,
                                    data: None,
                                },
                            );
                        }
                    });
                },
            ),
            C::SetLight(recs) => self.set_lights(recs),
            C::SetTransform(recs) | C::MultiplyTransform(recs) => {
                let multiply = matches!(cmd, C::MultiplyTransform(_));
                let mut keys = Vec::new();
                for r in recs {
                    keys.push(state::transform_key(r.transform_type.get())?);
                }
                self.write_state(
                    recs.iter().zip(keys),
                    |_, _| Ok(()),
                    |w, (r, key)| {
                        let m = r.matrix();
                        let v = if multiply {
                            state::mat_mul(&m, &w.state().transform(key))
                        } else {
                            m
                        };
                        w.set(StateKey::Transform(key), |st| {
                            st.transforms.insert(key, v);
                        });
                    },
                )
            }
            C::SetClipPlane(recs) => self.write_state(
                recs,
                |_, r| {
                    check_below(
                        "SETCLIPPLANE dwIndex",
                        u64::from(r.index.get()),
                        u64::from(limits::MAX_CLIP_PLANES),
                    )
                },
                |w, r| {
                    let i = r.index.get();
                    w.set(StateKey::ClipPlane(i), |st| {
                        if let Some(p) = st.clip_planes.get_mut(i as usize) {
                            *p = [r.a.get(), r.b.get(), r.c.get(), r.d.get()];
                        }
                    });
                },
            ),
            C::SetScissorRect(recs) => self.write_state(
                recs,
                |_, _| Ok(()),
                |w, r| {
                    w.set(StateKey::Scissor, |st| {
                        st.scissor = [r.left.get(), r.top.get(), r.right.get(), r.bottom.get()];
                    });
                },
            ),
            C::SetVertexShaderFunc(recs) => self.write_state(
                recs,
                |x, r| none_or_known(&x.ctx.vs_funcs, r.handle.get(), "vertex shader function"),
                |w, r| {
                    let h = r.handle.get();
                    w.set(StateKey::VertexShaderFunc, |st| st.vertex_shader_func = h);
                },
            ),
            C::SetPixelShader(recs) => self.write_state(
                recs,
                |x, r| none_or_known(&x.ctx.pixel_shaders, r.handle.get(), "pixel shader"),
                |w, r| w.set(StateKey::PixelShader, |st| st.pixel_shader = r.handle.get()),
            ),
            C::SetVertexShaderConst(r) => self.consts_v(r, true, 0),
            C::SetVertexShaderConstI(r) => self.consts_v(r, true, 1),
            C::SetPixelShaderConst(r) => self.consts_v(r, false, 0),
            C::SetPixelShaderConstI(r) => self.consts_v(r, false, 1),
            C::SetVertexShaderConstB(r) => self.consts_b(r, true),
            C::SetPixelShaderConstB(r) => self.consts_b(r, false),
            _ => Err(super::unsupported_opcode()),
        }
    }

    fn render_states(&mut self, recs: &[Dp2RenderState]) -> Result<()> {
        let recording = self.ctx.recording.is_some();
        let mut deleted = Vec::new();
        let mut scenes = 0u64;
        self.write_state(
            recs,
            |_, r| {
                check_below(
                    "RenderState",
                    u64::from(r.state.get()),
                    u64::from(limits::MAX_RENDER_STATES),
                )
            },
            |w, r| {
                let s = r.state.get();
                let v = state::sanitize_render_state(s, r.value.get());
                let was_in_scene = w.state().in_scene;
                w.render_state(s, v);
                if s == Rs::SceneCapture.raw() && was_in_scene && !w.state().in_scene {
                    scenes = scenes.saturating_add(1);
                }
                if s == Rs::DeleteRtPatch.raw() && !recording {
                    deleted.push(v);
                }
            },
        )?;
        for h in deleted {
            self.ctx.patches.remove(&h);
        }
        self.ctx.stats.scenes = self.ctx.stats.scenes.saturating_add(scenes);
        Ok(())
    }

    fn set_lights(&mut self, recs: Records<'c, SetLightRecord<'c>>) -> Result<()> {
        let n = self.target_ref().lights.len() as u64;
        self.write_state(
            &recs,
            |_, r| {
                let i = u64::from(r.head.index.get());
                if i >= n {
                    return Err(range("SETLIGHT dwIndex (not created)", i, n));
                }
                let dt = r.head.data_type.get();
                if SetLightDataType::from_raw(dt).is_none() {
                    return Err(DeviceError::BadValue {
                        what: "SETLIGHT dwDataType",
                        value: dt,
                    });
                }
                if let Some(l) = r.light {
                    let t = l.light_type.get();
                    // DX7+ lights: the DX5 PARALLELPOINT and GLSPOT are not.
                    if !LightType::from_d3d(t).is_some_and(LightType::is_dx7) {
                        return Err(DeviceError::BadValue {
                            what: "D3DLIGHT7.dltType",
                            value: t,
                        });
                    }
                }
                Ok(())
            },
            |w, r| {
                let i = r.head.index.get();
                w.set(StateKey::Light(i), |st| {
                    if let Some(slot) = st.lights.get_mut(i as usize) {
                        match SetLightDataType::from_raw(r.head.data_type.get()) {
                            Some(SetLightDataType::Enable) => slot.enabled = true,
                            Some(SetLightDataType::Disable) => slot.enabled = false,
                            _ => slot.data = r.light.map(light_bits),
                        }
                    }
                });
            },
        )
    }

    /// SET(VERTEX|PIXEL)SHADERCONST (`kind` 0) and …CONSTI (`kind` 1).
    fn consts_v(
        &mut self,
        recs: Records<'c, ShaderConstRecord<'c>>,
        vs: bool,
        kind: u32,
    ) -> Result<()> {
        let limit = match (vs, kind) {
            (true, 0) => limits::MAX_VS_CONST_F,
            (false, 0) => limits::MAX_PS_CONST_F,
            _ => limits::MAX_CONST_I,
        };
        self.write_state(
            &recs,
            |_, r| {
                // Two u32s cannot overflow a u64.
                let end =
                    u64::from(r.head.register.get()).saturating_add(u64::from(r.head.count.get()));
                if end > u64::from(limit) {
                    return Err(range("shader constant register", end, u64::from(limit) + 1));
                }
                Ok(())
            },
            |w, r| {
                // register + count ≤ limit (checked above).
                let reg = r.head.register.get();
                for (v, rr) in r.data.chunks_exact(4).zip(reg..) {
                    let key = match (vs, kind) {
                        (true, 0) => StateKey::VsConstF(rr),
                        (true, _) => StateKey::VsConstI(rr),
                        (false, 0) => StateKey::PsConstF(rr),
                        (false, _) => StateKey::PsConstI(rr),
                    };
                    w.set(key, |st| {
                        let c = if vs {
                            &mut st.vs_consts
                        } else {
                            &mut st.ps_consts
                        };
                        let arr = if kind == 0 { &mut c.f } else { &mut c.i };
                        if let Some(slot) = arr.get_mut(rr as usize) {
                            let g = |i: usize| v.get(i).map_or(0, |d| d.value.get());
                            *slot = [g(0), g(1), g(2), g(3)];
                        }
                    });
                }
            },
        )
    }

    /// SET(VERTEX|PIXEL)SHADERCONSTB.
    fn consts_b(&mut self, recs: Records<'c, ShaderConstBRecord<'c>>, vs: bool) -> Result<()> {
        self.write_state(
            &recs,
            |_, r| {
                // Two u32s cannot overflow a u64.
                let end =
                    u64::from(r.head.register.get()).saturating_add(u64::from(r.head.count.get()));
                if end > u64::from(limits::MAX_CONST_B) {
                    return Err(range(
                        "BOOL constant register",
                        end,
                        u64::from(limits::MAX_CONST_B) + 1,
                    ));
                }
                Ok(())
            },
            |w, r| {
                // register + count ≤ MAX_CONST_B (checked above).
                let reg = r.head.register.get();
                for (v, rr) in r.data.iter().zip(reg..) {
                    let key = if vs {
                        StateKey::VsConstB(rr)
                    } else {
                        StateKey::PsConstB(rr)
                    };
                    w.set(key, |st| {
                        let c = if vs {
                            &mut st.vs_consts
                        } else {
                            &mut st.ps_consts
                        };
                        if let Some(slot) = c.b.get_mut(rr as usize) {
                            *slot = v.value.get();
                        }
                    });
                }
            },
        )
    }
}
