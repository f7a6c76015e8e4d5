//! The shader IR: what a token stream means, in Direct3D's own terms.
//!
//! - In: built by [`crate::front`] from tokens or by [`crate::text`] from
//!   assembly.
//! - Out: [`Shader`] (a profile and its instructions), and tokens again
//!   ([`Shader::to_tokens`]).
//! - Guarantees: every field is a typed value (register types, modifiers,
//!   swizzles, declarations); [`Shader::to_tokens`] is the exact inverse of
//!   the front end for every stream the front end accepts without comments.
//!   This module also holds the one table of opcodes ([`Opcode`]) with
//!   their DDK names and operand shapes per version.

use core::fmt;

/// Vertex or pixel shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShaderKind {
    /// A vertex shader (version token 0xFFFE….).
    Vertex,
    /// A pixel shader (version token 0xFFFF….).
    Pixel,
}

/// The shader versions this crate accepts (the version token's value).
/// Variants are spelled as the assembly names them (`vs_2_x` → `Vs2_x`).
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Profile {
    /// vs_1_1 (0xFFFE0101).
    Vs1_1,
    /// vs_2_0 (0xFFFE0200).
    Vs2_0,
    /// vs_2_x (0xFFFE0201).
    Vs2_x,
    /// vs_3_0 (0xFFFE0300).
    Vs3_0,
    /// ps_1_1 (0xFFFF0101).
    Ps1_1,
    /// ps_1_2 (0xFFFF0102).
    Ps1_2,
    /// ps_1_3 (0xFFFF0103).
    Ps1_3,
    /// ps_1_4 (0xFFFF0104).
    Ps1_4,
    /// ps_2_0 (0xFFFF0200).
    Ps2_0,
    /// ps_2_x (0xFFFF0201).
    Ps2_x,
    /// ps_3_0 (0xFFFF0300).
    Ps3_0,
}

impl Profile {
    /// Every profile, in version order (vertex first).
    pub const ALL: [Profile; 11] = [
        Profile::Vs1_1,
        Profile::Vs2_0,
        Profile::Vs2_x,
        Profile::Vs3_0,
        Profile::Ps1_1,
        Profile::Ps1_2,
        Profile::Ps1_3,
        Profile::Ps1_4,
        Profile::Ps2_0,
        Profile::Ps2_x,
        Profile::Ps3_0,
    ];

    /// The profile of a version token, if it is one of the supported ones.
    pub fn from_token(token: u32) -> Option<Profile> {
        Profile::ALL.into_iter().find(|p| p.token() == token)
    }

    /// The version token (`0xFFFE0000 | major << 8 | minor` for vertex
    /// shaders, `0xFFFF0000 | …` for pixel shaders).
    pub fn token(self) -> u32 {
        let (major, minor) = self.version();
        let base = match self.kind() {
            ShaderKind::Vertex => 0xFFFE_0000,
            ShaderKind::Pixel => 0xFFFF_0000,
        };
        base | u32::from(major) << 8 | u32::from(minor)
    }

    /// Vertex or pixel.
    pub fn kind(self) -> ShaderKind {
        if self < Profile::Ps1_1 {
            ShaderKind::Vertex
        } else {
            ShaderKind::Pixel
        }
    }

    /// (major, minor) as the version token carries them (`_2_x` is minor 1).
    pub fn version(self) -> (u8, u8) {
        match self {
            Profile::Vs1_1 | Profile::Ps1_1 => (1, 1),
            Profile::Ps1_2 => (1, 2),
            Profile::Ps1_3 => (1, 3),
            Profile::Ps1_4 => (1, 4),
            Profile::Vs2_0 | Profile::Ps2_0 => (2, 0),
            Profile::Vs2_x | Profile::Ps2_x => (2, 1),
            Profile::Vs3_0 | Profile::Ps3_0 => (3, 0),
        }
    }

    /// The assembly name (`vs_2_0`, `ps_2_x`, …).
    pub fn name(self) -> &'static str {
        match self {
            Profile::Vs1_1 => "vs_1_1",
            Profile::Vs2_0 => "vs_2_0",
            Profile::Vs2_x => "vs_2_x",
            Profile::Vs3_0 => "vs_3_0",
            Profile::Ps1_1 => "ps_1_1",
            Profile::Ps1_2 => "ps_1_2",
            Profile::Ps1_3 => "ps_1_3",
            Profile::Ps1_4 => "ps_1_4",
            Profile::Ps2_0 => "ps_2_0",
            Profile::Ps2_x => "ps_2_x",
            Profile::Ps3_0 => "ps_3_0",
        }
    }

    /// The profile named `name` in assembly (case-insensitive).
    pub fn from_name(name: &str) -> Option<Profile> {
        Profile::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(name))
    }

    /// Shader model 1 (no length field in instruction tokens, no
    /// relative-address tokens).
    pub fn is_sm1(self) -> bool {
        self.version().0 < 2
    }

    /// True for vertex shaders.
    pub fn is_vertex(self) -> bool {
        self.kind() == ShaderKind::Vertex
    }

    /// True for ps_1_1 … ps_1_4.
    pub fn is_ps1(self) -> bool {
        !self.is_vertex() && self.is_sm1()
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

macro_rules! opcodes {
    ($($(#[$doc:meta])* $name:ident = $value:literal, $ddk:literal, $mnemonic:literal;)*) => {
        /// An instruction opcode (`D3DSHADER_INSTRUCTION_OPCODE_TYPE`,
        /// bits 15:0 of an instruction token). COMMENT and END are not
        /// instructions and are handled by the front end.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u16)]
        pub enum Opcode {
            $($(#[$doc])* $name = $value,)*
        }

        impl Opcode {
            /// Every opcode, in numeric order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$name,)*];

            /// The opcode with this value, if it is assigned.
            pub fn from_u16(value: u16) -> Option<Opcode> {
                match value {
                    $($value => Some(Opcode::$name),)*
                    _ => None,
                }
            }

            /// The DDK's name (`D3DSIO_MOV`).
            pub fn ddk_name(self) -> &'static str {
                match self {
                    $(Opcode::$name => $ddk,)*
                }
            }

            /// The assembly mnemonic (`mov`); [`Opcode::mnemonic_in`] gives
            /// the version-specific spelling of TEX and TEXCOORD.
            pub fn mnemonic(self) -> &'static str {
                match self {
                    $(Opcode::$name => $mnemonic,)*
                }
            }
        }
    };
}

opcodes! {
    /// No operation.
    Nop = 0x00, "D3DSIO_NOP", "nop";
    /// Move.
    Mov = 0x01, "D3DSIO_MOV", "mov";
    /// Add.
    Add = 0x02, "D3DSIO_ADD", "add";
    /// Subtract.
    Sub = 0x03, "D3DSIO_SUB", "sub";
    /// Multiply-add.
    Mad = 0x04, "D3DSIO_MAD", "mad";
    /// Multiply.
    Mul = 0x05, "D3DSIO_MUL", "mul";
    /// Reciprocal.
    Rcp = 0x06, "D3DSIO_RCP", "rcp";
    /// Reciprocal square root.
    Rsq = 0x07, "D3DSIO_RSQ", "rsq";
    /// Three-component dot product.
    Dp3 = 0x08, "D3DSIO_DP3", "dp3";
    /// Four-component dot product.
    Dp4 = 0x09, "D3DSIO_DP4", "dp4";
    /// Minimum.
    Min = 0x0A, "D3DSIO_MIN", "min";
    /// Maximum.
    Max = 0x0B, "D3DSIO_MAX", "max";
    /// Set on less than.
    Slt = 0x0C, "D3DSIO_SLT", "slt";
    /// Set on greater or equal.
    Sge = 0x0D, "D3DSIO_SGE", "sge";
    /// Full-precision 2^x.
    Exp = 0x0E, "D3DSIO_EXP", "exp";
    /// Full-precision log2.
    Log = 0x0F, "D3DSIO_LOG", "log";
    /// Lighting coefficients.
    Lit = 0x10, "D3DSIO_LIT", "lit";
    /// Distance vector.
    Dst = 0x11, "D3DSIO_DST", "dst";
    /// Linear interpolation.
    Lrp = 0x12, "D3DSIO_LRP", "lrp";
    /// Fractional part.
    Frc = 0x13, "D3DSIO_FRC", "frc";
    /// 4×4 matrix product.
    M4x4 = 0x14, "D3DSIO_M4x4", "m4x4";
    /// 4×3 matrix product.
    M4x3 = 0x15, "D3DSIO_M4x3", "m4x3";
    /// 3×4 matrix product.
    M3x4 = 0x16, "D3DSIO_M3x4", "m3x4";
    /// 3×3 matrix product.
    M3x3 = 0x17, "D3DSIO_M3x3", "m3x3";
    /// 3×2 matrix product.
    M3x2 = 0x18, "D3DSIO_M3x2", "m3x2";
    /// Call a subroutine.
    Call = 0x19, "D3DSIO_CALL", "call";
    /// Call a subroutine if a boolean or predicate is set.
    CallNz = 0x1A, "D3DSIO_CALLNZ", "callnz";
    /// Loop with `aL` counted by an integer constant.
    Loop = 0x1B, "D3DSIO_LOOP", "loop";
    /// Return from a subroutine (or end the main program).
    Ret = 0x1C, "D3DSIO_RET", "ret";
    /// End of a loop block.
    EndLoop = 0x1D, "D3DSIO_ENDLOOP", "endloop";
    /// Subroutine label.
    Label = 0x1E, "D3DSIO_LABEL", "label";
    /// Declaration of an input, output or sampler.
    Dcl = 0x1F, "D3DSIO_DCL", "dcl";
    /// Power.
    Pow = 0x20, "D3DSIO_POW", "pow";
    /// Cross product.
    Crs = 0x21, "D3DSIO_CRS", "crs";
    /// Sign.
    Sgn = 0x22, "D3DSIO_SGN", "sgn";
    /// Absolute value.
    Abs = 0x23, "D3DSIO_ABS", "abs";
    /// Normalize.
    Nrm = 0x24, "D3DSIO_NRM", "nrm";
    /// Sine and cosine.
    SinCos = 0x25, "D3DSIO_SINCOS", "sincos";
    /// Repeat a block a constant number of times.
    Rep = 0x26, "D3DSIO_REP", "rep";
    /// End of a repeat block.
    EndRep = 0x27, "D3DSIO_ENDREP", "endrep";
    /// If (boolean or predicate).
    If = 0x28, "D3DSIO_IF", "if";
    /// If with a comparison (`if_gt` …).
    Ifc = 0x29, "D3DSIO_IFC", "if";
    /// Else.
    Else = 0x2A, "D3DSIO_ELSE", "else";
    /// End if.
    EndIf = 0x2B, "D3DSIO_ENDIF", "endif";
    /// Break out of a loop or repeat.
    Break = 0x2C, "D3DSIO_BREAK", "break";
    /// Break with a comparison (`break_gt` …).
    BreakC = 0x2D, "D3DSIO_BREAKC", "break";
    /// Move to the address register, rounding.
    Mova = 0x2E, "D3DSIO_MOVA", "mova";
    /// Define a boolean constant.
    DefB = 0x2F, "D3DSIO_DEFB", "defb";
    /// Define an integer constant.
    DefI = 0x30, "D3DSIO_DEFI", "defi";
    /// Texture coordinate (`texcoord`, ps_1_4 `texcrd`).
    TexCoord = 0x40, "D3DSIO_TEXCOORD", "texcoord";
    /// Kill the pixel if any component is negative.
    TexKill = 0x41, "D3DSIO_TEXKILL", "texkill";
    /// Texture sample (`tex`, ps_1_4+ `texld`, `texldp`, `texldb`).
    Tex = 0x42, "D3DSIO_TEX", "tex";
    /// Bump environment map.
    TexBem = 0x43, "D3DSIO_TEXBEM", "texbem";
    /// Bump environment map with luminance.
    TexBemL = 0x44, "D3DSIO_TEXBEML", "texbeml";
    /// Sample with (alpha, red) as coordinates.
    TexReg2Ar = 0x45, "D3DSIO_TEXREG2AR", "texreg2ar";
    /// Sample with (green, blue) as coordinates.
    TexReg2Gb = 0x46, "D3DSIO_TEXREG2GB", "texreg2gb";
    /// First row of a 3×2 texture matrix.
    TexM3x2Pad = 0x47, "D3DSIO_TEXM3x2PAD", "texm3x2pad";
    /// Last row of a 3×2 texture matrix, then sample.
    TexM3x2Tex = 0x48, "D3DSIO_TEXM3x2TEX", "texm3x2tex";
    /// A row of a 3×3 texture matrix.
    TexM3x3Pad = 0x49, "D3DSIO_TEXM3x3PAD", "texm3x3pad";
    /// Last row of a 3×3 texture matrix, then sample.
    TexM3x3Tex = 0x4A, "D3DSIO_TEXM3x3TEX", "texm3x3tex";
    /// Never valid in any version (W names it RESERVED0, M TEXM3x3DIFF).
    TexM3x3Diff = 0x4B, "D3DSIO_TEXM3x3DIFF", "texm3x3diff";
    /// Specular reflection with a constant eye ray.
    TexM3x3Spec = 0x4C, "D3DSIO_TEXM3x3SPEC", "texm3x3spec";
    /// Specular reflection with a varying eye ray.
    TexM3x3VSpec = 0x4D, "D3DSIO_TEXM3x3VSPEC", "texm3x3vspec";
    /// Partial-precision 2^x.
    ExpP = 0x4E, "D3DSIO_EXPP", "expp";
    /// Partial-precision log2.
    LogP = 0x4F, "D3DSIO_LOGP", "logp";
    /// Conditional select against 0.5.
    Cnd = 0x50, "D3DSIO_CND", "cnd";
    /// Define a float constant.
    Def = 0x51, "D3DSIO_DEF", "def";
    /// Sample with (red, green, blue) as coordinates.
    TexReg2Rgb = 0x52, "D3DSIO_TEXREG2RGB", "texreg2rgb";
    /// Dot product, then sample.
    TexDp3Tex = 0x53, "D3DSIO_TEXDP3TEX", "texdp3tex";
    /// 3×2 texture matrix producing depth.
    TexM3x2Depth = 0x54, "D3DSIO_TEXM3x2DEPTH", "texm3x2depth";
    /// Texture-coordinate dot product.
    TexDp3 = 0x55, "D3DSIO_TEXDP3", "texdp3";
    /// 3×3 texture matrix without sampling.
    TexM3x3 = 0x56, "D3DSIO_TEXM3x3", "texm3x3";
    /// Depth from a temporary (ps_1_4).
    TexDepth = 0x57, "D3DSIO_TEXDEPTH", "texdepth";
    /// Conditional select against 0.
    Cmp = 0x58, "D3DSIO_CMP", "cmp";
    /// Bump environment map transform (ps_1_4).
    Bem = 0x59, "D3DSIO_BEM", "bem";
    /// Two-component dot product plus a scalar.
    Dp2Add = 0x5A, "D3DSIO_DP2ADD", "dp2add";
    /// Screen-space x derivative.
    Dsx = 0x5B, "D3DSIO_DSX", "dsx";
    /// Screen-space y derivative.
    Dsy = 0x5C, "D3DSIO_DSY", "dsy";
    /// Sample with explicit gradients.
    TexLdd = 0x5D, "D3DSIO_TEXLDD", "texldd";
    /// Set the predicate register by comparison.
    SetP = 0x5E, "D3DSIO_SETP", "setp";
    /// Sample at an explicit level of detail.
    TexLdl = 0x5F, "D3DSIO_TEXLDL", "texldl";
    /// Break if a predicate is set.
    BreakP = 0x60, "D3DSIO_BREAKP", "breakp";
    /// Start of the second phase of a ps_1_4 shader.
    Phase = 0xFFFD, "D3DSIO_PHASE", "phase";
}

/// How the operands of an instruction are encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// An optional destination then `srcs` source parameters.
    Op {
        /// Whether a destination parameter comes first.
        dst: bool,
        /// How many source parameters follow.
        srcs: u8,
    },
    /// DCL: a declaration token, then a destination parameter.
    Dcl,
    /// DEF: a destination, then 4 float DWORDs.
    Def,
    /// DEFI: a destination, then 4 integer DWORDs.
    DefI,
    /// DEFB: a destination, then 1 BOOL DWORD.
    DefB,
}

impl Form {
    /// The number of parameter DWORDs without relative-address or
    /// predicate tokens: the length of an SM1 instruction.
    pub fn base_len(self) -> usize {
        match self {
            Form::Op { dst, srcs } => usize::from(srcs).saturating_add(usize::from(dst)),
            Form::Dcl | Form::DefB => 2,
            Form::Def | Form::DefI => 5,
        }
    }
}

/// Bit set of profiles. Evaluated at compile time only (an out-of-range
/// index would be a build error), hence the allowed lints.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
const fn set(profiles: &[Profile]) -> u16 {
    let mut bits = 0u16;
    let mut i = 0;
    while i < profiles.len() {
        bits |= 1 << profiles[i] as u16;
        i += 1;
    }
    bits
}

use Profile::*;
const VS: u16 = set(&[Vs1_1, Vs2_0, Vs2_x, Vs3_0]);
const VS2: u16 = set(&[Vs2_0, Vs2_x, Vs3_0]);
const VS2X: u16 = set(&[Vs2_x, Vs3_0]);
const PS1: u16 = set(&[Ps1_1, Ps1_2, Ps1_3, Ps1_4]);
const PS1_3: u16 = set(&[Ps1_1, Ps1_2, Ps1_3]);
const PS12_13: u16 = set(&[Ps1_2, Ps1_3]);
const PS2: u16 = set(&[Ps2_0, Ps2_x, Ps3_0]);
const PS2X: u16 = set(&[Ps2_x, Ps3_0]);
const ALL: u16 = VS | PS1 | PS2;

impl Opcode {
    /// The profiles in which the opcode may appear (the instruction lists
    /// of the Direct3D 9 assembly reference, `docs/shaders.md` §4).
    fn profiles(self) -> u16 {
        use Opcode::*;
        match self {
            Nop | Mov | Add | Sub | Mad | Mul | Dp3 | Def => ALL,
            Dp4 => VS | set(&[Ps1_2, Ps1_3, Ps1_4]) | PS2,
            Rcp | Rsq | Min | Max | Exp | Log | Frc | M4x4 | M4x3 | M3x4 | M3x3 | M3x2 => VS | PS2,
            Slt | Sge | Lit | Dst | ExpP | LogP => VS,
            Lrp => VS2 | PS1 | PS2,
            Dcl => VS | PS2,
            Pow | Crs | Abs | Nrm | SinCos => VS2 | PS2,
            Sgn | Mova => VS2,
            DefI | DefB | Call | CallNz | Ret | Label | Rep | EndRep | If | Else | EndIf => {
                VS2 | PS2X
            }
            Loop | EndLoop => VS2 | set(&[Ps3_0]),
            Ifc | Break | BreakC | BreakP | SetP => VS2X | PS2X,
            TexLdl => set(&[Vs3_0, Ps3_0]),
            Dsx | Dsy | TexLdd => PS2X,
            Dp2Add => PS2,
            Bem | TexDepth | Phase => set(&[Ps1_4]),
            Cnd => PS1,
            Cmp => set(&[Ps1_2, Ps1_3, Ps1_4]) | PS2,
            TexCoord => PS1,
            TexKill => PS1 | PS2,
            Tex => PS1 | PS2,
            TexBem | TexBemL | TexReg2Ar | TexReg2Gb | TexM3x2Pad | TexM3x2Tex | TexM3x3Pad
            | TexM3x3Tex | TexM3x3Spec | TexM3x3VSpec => PS1_3,
            TexReg2Rgb | TexDp3Tex | TexDp3 | TexM3x3 => PS12_13,
            TexM3x2Depth => set(&[Ps1_3]),
            TexM3x3Diff => 0,
        }
    }

    /// Whether `profile` allows this opcode.
    pub fn allowed_in(self, profile: Profile) -> bool {
        self.profiles() & (1 << profile as u16) != 0
    }

    /// How the operands are encoded in `profile` (`None` when the opcode is
    /// not part of that version). The one table of parameter counts: the
    /// length of an SM1 instruction is `form.base_len()`.
    pub fn form(self, profile: Profile) -> Option<Form> {
        use Opcode::*;
        if !self.allowed_in(profile) {
            return None;
        }
        let op = |dst: bool, srcs: u8| Some(Form::Op { dst, srcs });
        match self {
            Nop | Ret | EndLoop | EndRep | Else | EndIf | Break | Phase => op(false, 0),
            Mov | Rcp | Rsq | Exp | Log | Lit | Frc | Abs | Nrm | Mova | ExpP | LogP | Dsx
            | Dsy => op(true, 1),
            Add | Sub | Mul | Dp3 | Dp4 | Min | Max | Slt | Sge | Dst | M4x4 | M4x3 | M3x4
            | M3x3 | M3x2 | Pow | Crs | SetP | TexLdl | Bem => op(true, 2),
            Mad | Lrp | Cnd | Cmp | Dp2Add => op(true, 3),
            TexLdd => op(true, 4),
            Sgn | SinCos => {
                if profile == Vs3_0 || profile == Ps3_0 {
                    op(true, 1)
                } else {
                    op(true, 3)
                }
            }
            Call | Rep | If | Label | BreakP => op(false, 1),
            CallNz | Loop | Ifc | BreakC => op(false, 2),
            Dcl => Some(Form::Dcl),
            Def => Some(Form::Def),
            DefI => Some(Form::DefI),
            DefB => Some(Form::DefB),
            TexCoord | Tex if profile == Ps1_4 => op(true, 1),
            Tex if !profile.is_sm1() => op(true, 2),
            TexCoord | Tex | TexKill | TexDepth => op(true, 0),
            TexBem | TexBemL | TexReg2Ar | TexReg2Gb | TexM3x2Pad | TexM3x2Tex | TexM3x3Pad
            | TexM3x3Tex | TexM3x3VSpec | TexReg2Rgb | TexDp3Tex | TexM3x2Depth | TexDp3
            | TexM3x3 | TexM3x3Diff => op(true, 1),
            TexM3x3Spec => op(true, 2),
        }
    }

    /// The mnemonic as `profile` spells it: `texcrd`/`texld` in ps_1_4,
    /// `texld` from ps_2_0 on.
    pub fn mnemonic_in(self, profile: Profile) -> &'static str {
        match self {
            Opcode::TexCoord if profile == Ps1_4 => "texcrd",
            Opcode::Tex if !profile.is_ps1() || profile == Ps1_4 => "texld",
            _ => self.mnemonic(),
        }
    }

    /// Whether the opcode's control bits (23:16) carry a comparison.
    pub fn has_comparison(self) -> bool {
        matches!(self, Opcode::Ifc | Opcode::BreakC | Opcode::SetP)
    }

    /// Declarations and constant definitions (they execute nothing).
    pub fn is_declaration(self) -> bool {
        matches!(
            self,
            Opcode::Dcl | Opcode::Def | Opcode::DefI | Opcode::DefB
        )
    }
}

/// `D3DSHADER_PARAM_REGISTER_TYPE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum RegisterType {
    /// D3DSPR_TEMP: `r#`.
    Temp = 0,
    /// D3DSPR_INPUT: `v#`.
    Input = 1,
    /// D3DSPR_CONST: `c#`.
    Const = 2,
    /// D3DSPR_ADDR in vertex shaders (`a0`), D3DSPR_TEXTURE in pixel
    /// shaders (`t#`).
    Addr = 3,
    /// D3DSPR_RASTOUT: `oPos`, `oFog`, `oPts`.
    RastOut = 4,
    /// D3DSPR_ATTROUT: `oD#`.
    AttrOut = 5,
    /// D3DSPR_TEXCRDOUT (`oT#`, vs < 3.0) / D3DSPR_OUTPUT (`o#`, vs_3_0).
    TexCrdOut = 6,
    /// D3DSPR_CONSTINT: `i#`.
    ConstInt = 7,
    /// D3DSPR_COLOROUT: `oC#`.
    ColorOut = 8,
    /// D3DSPR_DEPTHOUT: `oDepth`.
    DepthOut = 9,
    /// D3DSPR_SAMPLER: `s#`.
    Sampler = 10,
    /// D3DSPR_CONST2: `c2048`–`c4095`.
    Const2 = 11,
    /// D3DSPR_CONST3: `c4096`–`c6143`.
    Const3 = 12,
    /// D3DSPR_CONST4: `c6144`–`c8191`.
    Const4 = 13,
    /// D3DSPR_CONSTBOOL: `b#`.
    ConstBool = 14,
    /// D3DSPR_LOOP: `aL`.
    Loop = 15,
    /// D3DSPR_TEMPFLOAT16 (reserved; never valid).
    TempFloat16 = 16,
    /// D3DSPR_MISCTYPE: `vPos` (0), `vFace` (1).
    MiscType = 17,
    /// D3DSPR_LABEL: `l#`.
    Label = 18,
    /// D3DSPR_PREDICATE: `p0`.
    Predicate = 19,
}

impl RegisterType {
    /// D3DSPR_TEXTURE (pixel shaders) shares its value with D3DSPR_ADDR.
    pub const TEXTURE: RegisterType = RegisterType::Addr;
    /// D3DSPR_OUTPUT (vs_3_0) shares its value with D3DSPR_TEXCRDOUT.
    pub const OUTPUT: RegisterType = RegisterType::TexCrdOut;

    /// The register type with this 5-bit value.
    pub fn from_u8(value: u8) -> Option<RegisterType> {
        use RegisterType::*;
        Some(match value {
            0 => Temp,
            1 => Input,
            2 => Const,
            3 => Addr,
            4 => RastOut,
            5 => AttrOut,
            6 => TexCrdOut,
            7 => ConstInt,
            8 => ColorOut,
            9 => DepthOut,
            10 => Sampler,
            11 => Const2,
            12 => Const3,
            13 => Const4,
            14 => ConstBool,
            15 => Loop,
            16 => TempFloat16,
            17 => MiscType,
            18 => Label,
            19 => Predicate,
            _ => return None,
        })
    }
}

/// A register: type and number (bits 10:0 of a parameter token).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Register {
    /// The register file.
    pub ty: RegisterType,
    /// The register number, 0…2047.
    pub index: u16,
}

/// D3DSRO_*: the registers of D3DSPR_RASTOUT.
pub mod rastout {
    /// `oPos`.
    pub const POSITION: u16 = 0;
    /// `oFog`.
    pub const FOG: u16 = 1;
    /// `oPts` (point size).
    pub const POINT_SIZE: u16 = 2;
}

/// D3DSMO_*: the registers of D3DSPR_MISCTYPE.
pub mod misctype {
    /// `vPos`.
    pub const POSITION: u16 = 0;
    /// `vFace`.
    pub const FACE: u16 = 1;
}

/// A source swizzle: 2 bits per output channel (x in bits 1:0), each the
/// source component 0…3 it reads. Identity is 0xE4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Swizzle(pub u8);

impl Swizzle {
    /// `.xyzw`.
    pub const IDENTITY: Swizzle = Swizzle(0xE4);

    /// The source component read for output channel `channel` (0…3).
    pub fn component(self, channel: u8) -> u8 {
        (self.0 >> ((channel & 3) << 1)) & 3
    }

    /// `.x`, `.y`, `.z` or `.w` replicated to all four channels.
    pub fn replicate(component: u8) -> Swizzle {
        let c = component & 3;
        Swizzle(c | c << 2 | c << 4 | c << 6)
    }

    /// The replicated component, if all four channels read the same one.
    pub fn replicated(self) -> Option<u8> {
        let c = self.component(0);
        (self == Swizzle::replicate(c)).then_some(c)
    }
}

/// `D3DSHADER_PARAM_SRCMOD_TYPE` (bits 27:24 of a source token).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum SrcModifier {
    /// No modifier.
    None = 0,
    /// `-r`.
    Neg = 1,
    /// `r_bias`: x − 0.5.
    Bias = 2,
    /// `-r_bias`.
    BiasNeg = 3,
    /// `r_bx2`: 2x − 1.
    Sign = 4,
    /// `-r_bx2`.
    SignNeg = 5,
    /// `1-r`.
    Comp = 6,
    /// `r_x2`.
    X2 = 7,
    /// `-r_x2`.
    X2Neg = 8,
    /// `r_dz`: divide by z.
    Dz = 9,
    /// `r_dw`: divide by w.
    Dw = 10,
    /// `r_abs`.
    Abs = 11,
    /// `-r_abs`.
    AbsNeg = 12,
    /// `!p`.
    Not = 13,
}

impl SrcModifier {
    /// The modifier with this 4-bit value.
    pub fn from_u8(value: u8) -> Option<SrcModifier> {
        use SrcModifier::*;
        Some(match value {
            0 => None,
            1 => Neg,
            2 => Bias,
            3 => BiasNeg,
            4 => Sign,
            5 => SignNeg,
            6 => Comp,
            7 => X2,
            8 => X2Neg,
            9 => Dz,
            10 => Dw,
            11 => Abs,
            12 => AbsNeg,
            13 => Not,
            _ => return Option::None,
        })
    }
}

/// A relative-address register: `a0.x` … `a0.w` or `aL`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RelAddr {
    /// `a0` (D3DSPR_ADDR) or `aL` (D3DSPR_LOOP).
    pub reg: Register,
    /// The component read (a replicate swizzle for `a0`).
    pub swizzle: Swizzle,
    /// vs_1_1: the address is implied (`a0.x`) and takes no token.
    pub implicit: bool,
}

/// A source parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Src {
    /// The register read (its index is the base for relative addressing).
    pub reg: Register,
    /// Which components are read, in which order.
    pub swizzle: Swizzle,
    /// Negate, bias, sign, complement, ×2, divide, abs, not.
    pub modifier: SrcModifier,
    /// Relative addressing: the register index is `reg.index + address`.
    pub relative: Option<RelAddr>,
}

/// Result modifiers of a destination (bits 23:20).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DstModifiers {
    /// `_sat`: clamp to [0, 1].
    pub saturate: bool,
    /// `_pp`: partial precision is enough.
    pub partial_precision: bool,
    /// `_centroid`: interpolate at the centroid (declarations).
    pub centroid: bool,
}

/// A destination parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dst {
    /// The register written.
    pub reg: Register,
    /// Components written: x = 1, y = 2, z = 4, w = 8 (never 0).
    pub write_mask: u8,
    /// `_sat`, `_pp`, `_centroid`.
    pub modifiers: DstModifiers,
    /// ps_1_x result shift: 1 = ×2, 2 = ×4, 3 = ×8, −1 = ÷2, −2 = ÷4,
    /// −3 = ÷8, 0 = none.
    pub shift: i8,
    /// vs_3_0 output relative addressing (`o[aL]`).
    pub relative: Option<RelAddr>,
}

/// `D3DDECLUSAGE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Usage {
    /// POSITION.
    Position = 0,
    /// BLENDWEIGHT.
    BlendWeight = 1,
    /// BLENDINDICES.
    BlendIndices = 2,
    /// NORMAL.
    Normal = 3,
    /// PSIZE.
    PSize = 4,
    /// TEXCOORD.
    TexCoord = 5,
    /// TANGENT.
    Tangent = 6,
    /// BINORMAL.
    Binormal = 7,
    /// TESSFACTOR.
    TessFactor = 8,
    /// POSITIONT.
    PositionT = 9,
    /// COLOR.
    Color = 10,
    /// FOG.
    Fog = 11,
    /// DEPTH.
    Depth = 12,
    /// SAMPLE.
    Sample = 13,
}

impl Usage {
    /// Every usage, by value.
    pub const ALL: [Usage; 14] = [
        Usage::Position,
        Usage::BlendWeight,
        Usage::BlendIndices,
        Usage::Normal,
        Usage::PSize,
        Usage::TexCoord,
        Usage::Tangent,
        Usage::Binormal,
        Usage::TessFactor,
        Usage::PositionT,
        Usage::Color,
        Usage::Fog,
        Usage::Depth,
        Usage::Sample,
    ];

    /// The usage with this 4-bit value.
    pub fn from_u8(value: u8) -> Option<Usage> {
        Usage::ALL.get(usize::from(value)).copied()
    }

    /// The assembly suffix (`dcl_position`).
    pub fn name(self) -> &'static str {
        match self {
            Usage::Position => "position",
            Usage::BlendWeight => "blendweight",
            Usage::BlendIndices => "blendindices",
            Usage::Normal => "normal",
            Usage::PSize => "psize",
            Usage::TexCoord => "texcoord",
            Usage::Tangent => "tangent",
            Usage::Binormal => "binormal",
            Usage::TessFactor => "tessfactor",
            Usage::PositionT => "positiont",
            Usage::Color => "color",
            Usage::Fog => "fog",
            Usage::Depth => "depth",
            Usage::Sample => "sample",
        }
    }
}

/// `D3DSAMPLER_TEXTURE_TYPE` (bits 30:27 of a sampler's DCL token).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum SamplerType {
    /// D3DSTT_UNKNOWN (never valid in a declaration).
    Unknown = 0,
    /// D3DSTT_1D (d3d8types only; never valid).
    Tex1D = 1,
    /// D3DSTT_2D: `dcl_2d`.
    Tex2D = 2,
    /// D3DSTT_CUBE: `dcl_cube`.
    Cube = 3,
    /// D3DSTT_VOLUME: `dcl_volume`.
    Volume = 4,
}

impl SamplerType {
    /// The type with this 4-bit value.
    pub fn from_u8(value: u8) -> Option<SamplerType> {
        Some(match value {
            0 => SamplerType::Unknown,
            1 => SamplerType::Tex1D,
            2 => SamplerType::Tex2D,
            3 => SamplerType::Cube,
            4 => SamplerType::Volume,
            _ => return None,
        })
    }
}

/// What a DCL declares, from its declaration token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Semantic {
    /// An input or output with a usage and usage index (0…15).
    Usage {
        /// D3DDECLUSAGE.
        usage: Usage,
        /// Usage index.
        index: u8,
    },
    /// A sampler and its texture type.
    Sampler(SamplerType),
}

/// `D3DSHADER_COMPARISON` (bits 18:16 of IFC, BREAKC, SETP).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Comparison {
    /// `_gt`.
    Gt = 1,
    /// `_eq`.
    Eq = 2,
    /// `_ge`.
    Ge = 3,
    /// `_lt`.
    Lt = 4,
    /// `_ne`.
    Ne = 5,
    /// `_le`.
    Le = 6,
}

impl Comparison {
    /// Every comparison.
    pub const ALL: [Comparison; 6] = [
        Comparison::Gt,
        Comparison::Eq,
        Comparison::Ge,
        Comparison::Lt,
        Comparison::Ne,
        Comparison::Le,
    ];

    /// The comparison with this value.
    pub fn from_u8(value: u8) -> Option<Comparison> {
        Comparison::ALL.into_iter().find(|c| *c as u8 == value)
    }

    /// The assembly suffix without its underscore (`gt`).
    pub fn name(self) -> &'static str {
        match self {
            Comparison::Gt => "gt",
            Comparison::Eq => "eq",
            Comparison::Ge => "ge",
            Comparison::Lt => "lt",
            Comparison::Ne => "ne",
            Comparison::Le => "le",
        }
    }
}

/// Opcode-specific control (bits 23:16 of the instruction token).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Control {
    /// No control bits.
    None,
    /// IFC, BREAKC, SETP.
    Comparison(Comparison),
    /// TEX from ps_2_0 on: `texldp` (D3DSI_TEXLD_PROJECT).
    Project,
    /// TEX from ps_2_0 on: `texldb` (D3DSI_TEXLD_BIAS).
    Bias,
}

/// The operands of an instruction.
#[derive(Clone, Debug, PartialEq)]
pub enum Operands {
    /// An ordinary instruction.
    Op {
        /// Destination, if the opcode writes one.
        dst: Option<Dst>,
        /// Sources, in token order.
        src: Vec<Src>,
    },
    /// DCL.
    Dcl {
        /// What is declared.
        semantic: Semantic,
        /// The declared register and its mask and modifiers.
        dst: Dst,
    },
    /// DEF: a float constant, as raw IEEE bits.
    Def {
        /// The `c#` defined.
        dst: Dst,
        /// x, y, z, w as f32 bits.
        values: [u32; 4],
    },
    /// DEFI: an integer constant.
    DefI {
        /// The `i#` defined.
        dst: Dst,
        /// x, y, z, w.
        values: [i32; 4],
    },
    /// DEFB: a boolean constant.
    DefB {
        /// The `b#` defined.
        dst: Dst,
        /// The BOOL DWORD (0 or 1 once validated).
        value: u32,
    },
}

/// One instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    /// What it does.
    pub opcode: Opcode,
    /// Comparison or texld variant.
    pub control: Control,
    /// ps_1_x: issued together with the previous instruction (`+`).
    pub coissue: bool,
    /// SM ≥ 2.0: the predicate (`(p0.x)`, `(!p0)`) guarding the write.
    pub predicate: Option<Src>,
    /// Destination, sources, or declaration data.
    pub operands: Operands,
    /// DWORD offset of the instruction token in the stream.
    pub offset: usize,
}

impl Instruction {
    /// An instruction neither co-issued nor predicated, at offset 0 (what
    /// the assembler and the program generator build; the offset is the
    /// front end's to set).
    pub fn new(opcode: Opcode, control: Control, operands: Operands) -> Instruction {
        Instruction {
            opcode,
            control,
            coissue: false,
            predicate: None,
            operands,
            offset: 0,
        }
    }

    /// The destination, whatever the operand form.
    pub fn dst(&self) -> Option<&Dst> {
        match &self.operands {
            Operands::Op { dst, .. } => dst.as_ref(),
            Operands::Dcl { dst, .. }
            | Operands::Def { dst, .. }
            | Operands::DefI { dst, .. }
            | Operands::DefB { dst, .. } => Some(dst),
        }
    }

    /// The sources (empty for declarations).
    pub fn src(&self) -> &[Src] {
        match &self.operands {
            Operands::Op { src, .. } => src,
            _ => &[],
        }
    }

    /// How many DWORDs the instruction takes in a stream (instruction token
    /// included), as [`Shader::to_tokens`] writes it.
    pub fn token_len(&self) -> usize {
        let rel = |r: Option<RelAddr>| usize::from(r.is_some_and(|r| !r.implicit));
        let mut n = 1usize;
        if let Some(d) = self.dst() {
            n = n.saturating_add(1).saturating_add(rel(d.relative));
        }
        if let Some(p) = &self.predicate {
            n = n.saturating_add(1).saturating_add(rel(p.relative));
        }
        for s in self.src() {
            n = n.saturating_add(1).saturating_add(rel(s.relative));
        }
        n.saturating_add(match self.operands {
            Operands::Op { .. } => 0,
            Operands::Dcl { .. } | Operands::DefB { .. } => 1,
            Operands::Def { .. } | Operands::DefI { .. } => 4,
        })
    }
}

/// A parsed shader.
#[derive(Clone, Debug, PartialEq)]
pub struct Shader {
    /// Its version.
    pub profile: Profile,
    /// Its instructions, comments dropped.
    pub instructions: Vec<Instruction>,
}

/// Token encodings, shared by the front end and [`Shader::to_tokens`].
pub mod token {
    /// The end token.
    pub const END: u32 = 0x0000_FFFF;
    /// Opcode bits of an instruction token.
    pub const OPCODE_MASK: u32 = 0x0000_FFFF;
    /// The comment opcode.
    pub const COMMENT: u32 = 0xFFFE;
    /// Comment length in DWORDs (bits 30:16).
    pub const COMMENT_SIZE_MASK: u32 = 0x7FFF_0000;
    /// Opcode-specific control (bits 23:16).
    pub const CONTROL_MASK: u32 = 0x00FF_0000;
    /// Parameter DWORD count, SM ≥ 2.0 (bits 27:24).
    pub const LENGTH_MASK: u32 = 0x0F00_0000;
    /// Predicated instruction (bit 28).
    pub const PREDICATED: u32 = 0x1000_0000;
    /// Co-issue, ps_1_x (bit 30).
    pub const COISSUE: u32 = 0x4000_0000;
    /// Parameter tokens have bit 31 set.
    pub const PARAM: u32 = 0x8000_0000;
    /// Register number (bits 10:0).
    pub const REG_NUMBER: u32 = 0x0000_07FF;
    /// Register type bits 2:0 (token bits 30:28).
    pub const REG_TYPE_LOW: u32 = 0x7000_0000;
    /// Register type bits 4:3 (token bits 12:11).
    pub const REG_TYPE_HIGH: u32 = 0x0000_1800;
    /// Relative addressing (bit 13).
    pub const RELATIVE: u32 = 0x0000_2000;
    /// Write mask (bits 19:16).
    pub const WRITE_MASK: u32 = 0x000F_0000;
    /// Result modifiers (bits 23:20).
    pub const DST_MOD: u32 = 0x00F0_0000;
    /// Result shift (bits 27:24).
    pub const SHIFT: u32 = 0x0F00_0000;
    /// Swizzle (bits 23:16).
    pub const SWIZZLE: u32 = 0x00FF_0000;
    /// Source modifier (bits 27:24).
    pub const SRC_MOD: u32 = 0x0F00_0000;
    /// DCL usage (bits 3:0).
    pub const DCL_USAGE: u32 = 0x0000_000F;
    /// DCL usage index (bits 19:16).
    pub const DCL_INDEX: u32 = 0x000F_0000;
    /// DCL sampler texture type (bits 30:27).
    pub const DCL_TEXTURE_TYPE: u32 = 0x7800_0000;
}

/// Encodes a register's type and number into parameter-token bits.
pub fn encode_register(reg: Register) -> u32 {
    let ty = reg.ty as u32;
    token::PARAM | (ty & 7) << 28 | (ty & 0x18) << 8 | (u32::from(reg.index) & token::REG_NUMBER)
}

impl RelAddr {
    fn encode(&self) -> u32 {
        encode_register(self.reg) | u32::from(self.swizzle.0) << 16
    }
}

impl Src {
    /// The source token (without its address token).
    pub fn encode(&self) -> u32 {
        let mut t = encode_register(self.reg)
            | u32::from(self.swizzle.0) << 16
            | (self.modifier as u32) << 24;
        if self.relative.is_some() {
            t |= token::RELATIVE;
        }
        t
    }

    fn push(&self, out: &mut Vec<u32>) {
        out.push(self.encode());
        if let Some(rel) = self.relative.filter(|r| !r.implicit) {
            out.push(rel.encode());
        }
    }
}

impl Dst {
    /// The destination token (without its address token).
    pub fn encode(&self) -> u32 {
        let m = self.modifiers;
        let mods = u32::from(m.saturate)
            | u32::from(m.partial_precision) << 1
            | u32::from(m.centroid) << 2;
        let shift = (self.shift as u8 & 0xF) as u32;
        let mut t = encode_register(self.reg)
            | u32::from(self.write_mask & 0xF) << 16
            | mods << 20
            | shift << 24;
        if self.relative.is_some() {
            t |= token::RELATIVE;
        }
        t
    }

    fn push(&self, out: &mut Vec<u32>) {
        out.push(self.encode());
        if let Some(rel) = self.relative.filter(|r| !r.implicit) {
            out.push(rel.encode());
        }
    }
}

impl Semantic {
    /// The DCL token.
    pub fn encode(&self) -> u32 {
        match *self {
            Semantic::Usage { usage, index } => {
                token::PARAM | usage as u32 | (u32::from(index) & 0xF) << 16
            }
            Semantic::Sampler(ty) => token::PARAM | (ty as u32) << 27,
        }
    }
}

/// One usage declaration of a shader (`dcl_texcoord8 o3.xy`): the
/// register, the semantic it carries and the components declared. What
/// links a vertex shader's inputs to the vertex declaration and, in
/// vs_3_0 → ps_3_0, its outputs to the pixel shader's inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Declaration {
    /// The declared register (`v#`, `o#`, `t#`, ...).
    pub reg: Register,
    /// D3DDECLUSAGE.
    pub usage: Usage,
    /// Usage index (0…15).
    pub index: u8,
    /// Components declared: x = 1, y = 2, z = 4, w = 8.
    pub write_mask: u8,
    /// `_centroid` (ps_3_0 inputs).
    pub centroid: bool,
}

impl Shader {
    /// Its usage declarations (`dcl_<usage><index> reg`) in program
    /// order; sampler declarations are not among them. Register files are
    /// not filtered: a caller picks the inputs (`v#`) or the vs_3_0
    /// outputs (`o#`) it needs. The one walk over the `dcl`s of a shader.
    pub fn declarations(&self) -> impl Iterator<Item = Declaration> + '_ {
        self.instructions
            .iter()
            .filter_map(|ins| match &ins.operands {
                Operands::Dcl {
                    semantic: Semantic::Usage { usage, index },
                    dst,
                } => Some(Declaration {
                    reg: dst.reg,
                    usage: *usage,
                    index: *index,
                    write_mask: dst.write_mask,
                    centroid: dst.modifiers.centroid,
                }),
                _ => None,
            })
    }
}

impl Shader {
    /// The token stream: version, instructions, end. The exact inverse of
    /// [`crate::front::parse`] for streams without comments.
    pub fn to_tokens(&self) -> Vec<u32> {
        let mut out =
            Vec::with_capacity(self.instructions.len().saturating_mul(4).saturating_add(2));
        out.push(self.profile.token());
        for ins in &self.instructions {
            let at = out.len();
            out.push(0);
            if let Some(p) = &ins.predicate {
                // The predicate token follows the destination.
                if let Some(d) = ins.dst() {
                    d.push(&mut out);
                }
                p.push(&mut out);
                for s in ins.src() {
                    s.push(&mut out);
                }
            } else {
                match &ins.operands {
                    Operands::Op { dst, src } => {
                        if let Some(d) = dst {
                            d.push(&mut out);
                        }
                        for s in src {
                            s.push(&mut out);
                        }
                    }
                    Operands::Dcl { semantic, dst } => {
                        out.push(semantic.encode());
                        dst.push(&mut out);
                    }
                    Operands::Def { dst, values } => {
                        dst.push(&mut out);
                        out.extend_from_slice(values);
                    }
                    Operands::DefI { dst, values } => {
                        dst.push(&mut out);
                        out.extend(values.iter().map(|v| *v as u32));
                    }
                    Operands::DefB { dst, value } => {
                        dst.push(&mut out);
                        out.push(*value);
                    }
                }
            }
            let params = out.len().saturating_sub(at).saturating_sub(1);
            let mut t = ins.opcode as u32;
            t |= match ins.control {
                Control::None => 0,
                Control::Comparison(c) => (c as u32) << 16,
                Control::Project => 0x0001_0000,
                Control::Bias => 0x0002_0000,
            };
            if !self.profile.is_sm1() {
                t |= ((params & 0xF) as u32) << 24;
            }
            if ins.predicate.is_some() {
                t |= token::PREDICATED;
            }
            if ins.coissue {
                t |= token::COISSUE;
            }
            if let Some(slot) = out.get_mut(at) {
                *slot = t;
            }
        }
        out.push(token::END);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_list_the_usage_dcls_in_order_without_samplers() {
        let s = crate::text::assemble(
            "ps_3_0\n\
             dcl_texcoord8 v1.xy\n\
             dcl_color0_centroid v0\n\
             dcl_2d s0\n\
             mov oC0, v0\n",
        )
        .expect("assembles");
        let d: Vec<Declaration> = s.declarations().collect();
        // Two usage declarations, in program order; the sampler's dcl_2d
        // is not one; `.xy` is mask 1 | 2 = 3, `_centroid` kept.
        assert_eq!(d.len(), 2);
        assert_eq!(
            (
                d[0].reg,
                d[0].usage,
                d[0].index,
                d[0].write_mask,
                d[0].centroid
            ),
            (
                Register {
                    ty: RegisterType::Input,
                    index: 1
                },
                Usage::TexCoord,
                8,
                3,
                false
            )
        );
        assert_eq!(
            (
                d[1].reg.index,
                d[1].usage,
                d[1].index,
                d[1].write_mask,
                d[1].centroid
            ),
            (0, Usage::Color, 0, 0xF, true)
        );
    }
}
