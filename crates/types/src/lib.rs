//! softhal-types: the Direct3D vocabulary every layer shares (the role
//! `wgpu-types` plays for wgpu).
//!
//! In: nothing at run time; this crate is declarations. Out:
//! * [`ddi_enum!`] and its [`EnumTable`] / [`FlagsTable`]: closed DDK enums
//!   with their numbers, DDK names both ways, `ALL`, `from_d3d`/`d3d`;
//! * the Direct3D value enums ([`values`]: `D3DCMPFUNC`, `D3DBLEND`,
//!   `D3DTEXTUREOP`, `D3DTA_*`, `D3DLIGHTTYPE`, ...), [`format::Format`]
//!   (`D3DFORMAT`) and the state flag families ([`flags`]);
//! * the texture-stage values made of several fields ([`stage_values`]:
//!   a `D3DTA_*` argument with its modifiers, `D3DTSS_RESULTARG`,
//!   `D3DTSS_TEXCOORDINDEX`, `D3DTTFF_*`);
//! * the state table ([`state`]): one row per render state and per
//!   texture-stage state with its value kind, Direct3D default, what the
//!   device honours and its state-block groups.
//!
//! Guarantees: no dependency on any softhal crate (every layer may use it:
//! `wire`, `device`, `submit`, `pipeline`); no `unsafe`; nothing here
//! allocates or panics on any input (`from_d3d` of any `u32` is `None` or
//! a variant, [`state::Honour::apply`] is total).

#![forbid(unsafe_code)]

pub mod ddi_enum;
pub mod flags;
pub mod format;
pub mod stage_values;
pub mod state;
pub mod values;

pub use ddi_enum::{EnumTable, FlagsTable};
pub use format::Format;
pub use stage_values::{ResultArg, TexCoordIndex, TextureArgument, TextureTransformFlags};
pub use state::{RenderStateType, TextureStageStateType};
pub use values::*;
