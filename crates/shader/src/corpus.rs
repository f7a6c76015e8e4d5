//! Shader programs that several crates' tests and the benchmarks share,
//! written once: the W7 and W8 workload shaders (`docs/benchmarks.md`,
//! "W7 and W8") as Direct3D assembly and as the token DWORDs the workload
//! definition gives, and [`EXAMPLES`], one hand-written program per
//! version using that version's instructions and modifiers.
//!
//! - In: nothing (constants).
//! - Out: assembly text and tokens.
//! - Guarantees (tested in `tests/workloads.rs` and `tests/roundtrip.rs`):
//!   every program here validates, each `*_ASM` assembles to its
//!   `*_TOKENS`, and `assemble(disassemble(t)) == t` for all of them.

/// Programs in the syntax of the Direct3D 9 assembly reference, one per
/// version, using that version's instructions and modifiers.
pub const EXAMPLES: &[&str] = &[
    "vs_1_1
dcl_position v0
dcl_normal v3
def c90, 1.0, 0.5, 0, -2.5
m4x4 oPos, v0, c0
mov a0.x, c4.x
dp3 r0.x, v3, c[a0.x + 10]
lit r1, r0
expp r2, r0.w
logp r3.y, r0.x
frc r4.xy, r0
sge r5, r0, -c5.yzxw
mov oD0, r1
mov oFog, r0.x
mov oPts, c6.w
mov oT7.xy, v0",
    "vs_2_0
def c7, 3.0, 1.0, 0.0, 0.0
defi i0, 4, 0, 1, 0
defb b3, true
dcl_position v0
dcl_texcoord2 v5
mova a0.x, c7.x
rep i0
add r0, r0, c9[a0.x]
endrep
if b3
call l2
else
callnz l3, b3
endif
loop aL, i0
add r1, r1, c10[aL]
endloop
sincos r2.xy, r0.x, c1, c2
sgn r3, r0, r4, r5
nrm r6.xyz, v5
pow r7.x, r0.x, c7.y
crs r8.xyz, r0, r1
abs r9, -r0
lrp r10, r0, r1, r2
mov oPos, v0
ret
label l2
mov oT0, c0
ret
label l3
ret",
    "vs_2_x
defi i0, 8, 0, 1, 0
dcl_position v0
setp_ge p0.xy, v0, c3
(p0.x) mov r0, v0
(!p0.y) add r0.x, r0, c1
rep i0
breakp p0.x
break_lt r0.x, c2.y
endrep
if_ne r0.y, c4.x
if p0.z
mov r1, c5
endif
endif
mov oPos, r0",
    "vs_3_0
dcl_position v0
dcl_texcoord3 v1
dcl_position o0
dcl_texcoord1 o3.xy
dcl_color o4
dcl_2d s0
dcl_cube s1
defi i1, 10, 0, 1, 0
texldl r0, v1, s0
mov_sat r1, -r0_abs
loop aL, i1
add r2, r2, v[aL]
mov o[aL], r2
endloop
mov o0, v0
mov o3.xy, r0
mov o4, r1",
    "ps_1_1
def c7, 0.5, 0.25, 1, 1
tex t0
texbem t1, t0
texm3x2pad t2, t0_bx2
texm3x2tex t3, t0_bx2
mul_x2 r0, t0, v0
+add_sat r0.a, 1-t1, c1_bias
mad_d2 r1.rgb, -t3_bx2, c2, r0
cnd r0, r0.a, r1, c7",
    "ps_1_3
tex t0
texm3x3pad t1, t0_bx2
texm3x3pad t2, t0_bx2
texm3x3spec t3, t0_bx2, c0
cmp r0, t3, c1, -c2_bias
dp4 r1, r0, v1",
    "ps_1_4
def c0, 1, 0, 0, 1
texld r0, t0
texcrd r1.xyz, t1_dz
texld r2, t2_dw.xyw
bem r3.xy, r0, r1
mov_x4 r4, -c0_x2
phase
texld r5, r3
texdepth r5
cmp r0, r4, r5, c0",
    "ps_2_0
dcl t0.xy
dcl_centroid t1
dcl_pp v0.rgb
dcl_2d s0
dcl_cube s1
dcl_volume s2
texld r0, t0, s0
texldp r1, t1, s1
texldb_pp r2, t1, s2
texkill r0
dp2add r3.x, r0, c0, c1.x
mul_sat r4, r0, v0.bgra
mov oC0, r4
mov oC1, r1
mov oDepth, r3.x",
    "ps_2_x
defb b0, false
defi i0, 3, 0, 1, 0
dcl t0
dcl_2d s0
rep i0
dsx r0, t0
dsy r1, t0
texldd r2, t0, s0, r0, r1
endrep
setp_eq p0, r2, c0
(p0) mov r3, c1
if b0
call l1
endif
mov oC0, r3
ret
label l1
mov r3, c2
ret",
    "ps_3_0
dcl vPos.xy
dcl vFace
dcl_texcoord0 v0
dcl_color1_centroid v1
dcl_2d s15
defi i2, 4, 0, 1, 0
texldl r0, v0, s15
loop aL, i2
add r1, r1, v[aL]
add r1, r1, c10[aL]
endloop
if_gt vFace, c0.x
mov r0.xy, vPos
endif
mov_pp oC3, -r0_abs
mov oDepth, r1.x",
];

/// W7_VS as assembly.
pub const W7_VS_ASM: &str = r"vs_2_0
def c7, 3.0, 1.0, 0.0, 0.0        ; index scale (3 registers per bone), 1, 0
dcl_position v0
dcl_normal v1
dcl_blendweight v2
dcl_blendindices v3
mul r0, v3, c7.x                  ; bone index * 3
mova a0, r0                       ; a0.xyzw = round(index * 3)
dp4 r1.x, v0, c9[a0.x]            ; bone 0: position
dp4 r1.y, v0, c10[a0.x]
dp4 r1.z, v0, c11[a0.x]
dp3 r2.x, v1, c9[a0.x]            ; bone 0: normal
dp3 r2.y, v1, c10[a0.x]
dp3 r2.z, v1, c11[a0.x]
mul r3.xyz, r1, v2.x              ; P = w0 * P0
mul r4.xyz, r2, v2.x              ; N = w0 * N0
dp4 r1.x, v0, c9[a0.y]            ; bone 1
dp4 r1.y, v0, c10[a0.y]
dp4 r1.z, v0, c11[a0.y]
dp3 r2.x, v1, c9[a0.y]
dp3 r2.y, v1, c10[a0.y]
dp3 r2.z, v1, c11[a0.y]
mad r3.xyz, r1, v2.y, r3
mad r4.xyz, r2, v2.y, r4
dp4 r1.x, v0, c9[a0.z]            ; bone 2
dp4 r1.y, v0, c10[a0.z]
dp4 r1.z, v0, c11[a0.z]
dp3 r2.x, v1, c9[a0.z]
dp3 r2.y, v1, c10[a0.z]
dp3 r2.z, v1, c11[a0.z]
mad r3.xyz, r1, v2.z, r3
mad r4.xyz, r2, v2.z, r4
dp4 r1.x, v0, c9[a0.w]            ; bone 3
dp4 r1.y, v0, c10[a0.w]
dp4 r1.z, v0, c11[a0.w]
dp3 r2.x, v1, c9[a0.w]
dp3 r2.y, v1, c10[a0.w]
dp3 r2.z, v1, c11[a0.w]
mad r3.xyz, r1, v2.w, r3
mad r4.xyz, r2, v2.w, r4
mov r3.w, c7.y                    ; P.w = 1
dp4 oPos.x, r3, c0                ; view-projection
dp4 oPos.y, r3, c1
dp4 oPos.z, r3, c2
dp4 oPos.w, r3, c3
dp3 r5.w, r4, r4                  ; normalize N
rsq r5.w, r5.w
mul r4.xyz, r4, r5.w
dp3 r6.x, r4, c4                  ; N.L
max r6.x, r6.x, c7.z              ; max(N.L, 0)
mov r7, c6                        ; ambient
mad oD0, r6.x, c5, r7             ; diffuse colour
mad oFog, r3.z, c8.x, c8.y        ; linear fog factor from world z
";
/// W7_VS as tokens (236 DWORDs).
pub const W7_VS_TOKENS: &[u32] = &[
    0xFFFE0200, 0x05000051, 0xA00F0007, 0x40400000, 0x3F800000, 0x00000000, 0x00000000, 0x0200001F,
    0x80000000, 0x900F0000, 0x0200001F, 0x80000003, 0x900F0001, 0x0200001F, 0x80000001, 0x900F0002,
    0x0200001F, 0x80000002, 0x900F0003, 0x03000005, 0x800F0000, 0x90E40003, 0xA0000007, 0x0200002E,
    0xB00F0000, 0x80E40000, 0x04000009, 0x80010001, 0x90E40000, 0xA0E42009, 0xB0000000, 0x04000009,
    0x80020001, 0x90E40000, 0xA0E4200A, 0xB0000000, 0x04000009, 0x80040001, 0x90E40000, 0xA0E4200B,
    0xB0000000, 0x04000008, 0x80010002, 0x90E40001, 0xA0E42009, 0xB0000000, 0x04000008, 0x80020002,
    0x90E40001, 0xA0E4200A, 0xB0000000, 0x04000008, 0x80040002, 0x90E40001, 0xA0E4200B, 0xB0000000,
    0x03000005, 0x80070003, 0x80E40001, 0x90000002, 0x03000005, 0x80070004, 0x80E40002, 0x90000002,
    0x04000009, 0x80010001, 0x90E40000, 0xA0E42009, 0xB0550000, 0x04000009, 0x80020001, 0x90E40000,
    0xA0E4200A, 0xB0550000, 0x04000009, 0x80040001, 0x90E40000, 0xA0E4200B, 0xB0550000, 0x04000008,
    0x80010002, 0x90E40001, 0xA0E42009, 0xB0550000, 0x04000008, 0x80020002, 0x90E40001, 0xA0E4200A,
    0xB0550000, 0x04000008, 0x80040002, 0x90E40001, 0xA0E4200B, 0xB0550000, 0x04000004, 0x80070003,
    0x80E40001, 0x90550002, 0x80E40003, 0x04000004, 0x80070004, 0x80E40002, 0x90550002, 0x80E40004,
    0x04000009, 0x80010001, 0x90E40000, 0xA0E42009, 0xB0AA0000, 0x04000009, 0x80020001, 0x90E40000,
    0xA0E4200A, 0xB0AA0000, 0x04000009, 0x80040001, 0x90E40000, 0xA0E4200B, 0xB0AA0000, 0x04000008,
    0x80010002, 0x90E40001, 0xA0E42009, 0xB0AA0000, 0x04000008, 0x80020002, 0x90E40001, 0xA0E4200A,
    0xB0AA0000, 0x04000008, 0x80040002, 0x90E40001, 0xA0E4200B, 0xB0AA0000, 0x04000004, 0x80070003,
    0x80E40001, 0x90AA0002, 0x80E40003, 0x04000004, 0x80070004, 0x80E40002, 0x90AA0002, 0x80E40004,
    0x04000009, 0x80010001, 0x90E40000, 0xA0E42009, 0xB0FF0000, 0x04000009, 0x80020001, 0x90E40000,
    0xA0E4200A, 0xB0FF0000, 0x04000009, 0x80040001, 0x90E40000, 0xA0E4200B, 0xB0FF0000, 0x04000008,
    0x80010002, 0x90E40001, 0xA0E42009, 0xB0FF0000, 0x04000008, 0x80020002, 0x90E40001, 0xA0E4200A,
    0xB0FF0000, 0x04000008, 0x80040002, 0x90E40001, 0xA0E4200B, 0xB0FF0000, 0x04000004, 0x80070003,
    0x80E40001, 0x90FF0002, 0x80E40003, 0x04000004, 0x80070004, 0x80E40002, 0x90FF0002, 0x80E40004,
    0x02000001, 0x80080003, 0xA0550007, 0x03000009, 0xC0010000, 0x80E40003, 0xA0E40000, 0x03000009,
    0xC0020000, 0x80E40003, 0xA0E40001, 0x03000009, 0xC0040000, 0x80E40003, 0xA0E40002, 0x03000009,
    0xC0080000, 0x80E40003, 0xA0E40003, 0x03000008, 0x80080005, 0x80E40004, 0x80E40004, 0x02000007,
    0x80080005, 0x80FF0005, 0x03000005, 0x80070004, 0x80E40004, 0x80FF0005, 0x03000008, 0x80010006,
    0x80E40004, 0xA0E40004, 0x0300000B, 0x80010006, 0x80000006, 0xA0AA0007, 0x02000001, 0x800F0007,
    0xA0E40006, 0x04000004, 0xD00F0000, 0x80000006, 0xA0E40005, 0x80E40007, 0x04000004, 0xC00F0001,
    0x80AA0003, 0xA0000008, 0xA0550008, 0x0000FFFF,
];

/// W7_PS as assembly.
pub const W7_PS_ASM: &str = r"ps_2_0
dcl v0
mov oC0, v0
";
/// W7_PS as tokens (8 DWORDs).
pub const W7_PS_TOKENS: &[u32] = &[
    0xFFFF0200, 0x0200001F, 0x80000000, 0x900F0000, 0x02000001, 0x800F0800, 0x90E40000, 0x0000FFFF,
];

/// W8_PS as assembly.
pub const W8_PS_ASM: &str = r"ps_2_0
def c4, 2.0, -1.0, 24.0, 0.0      ; normal decode scale, bias; specular exponent
def c5, 1.0, -0.12, 0.0, 0.0      ; attenuation 1 - 0.12 |L|^2
dcl t0.xy                         ; texture coordinate
dcl t1.xyz                        ; tangent-space light vector (not unit)
dcl t2                            ; xyz tangent-space view vector (not unit), w fog coordinate
dcl v0                            ; vertex colour
dcl_2d s0                         ; colour map
dcl_2d s1                         ; normal map
texld r0, t0, s0                  ; albedo
texld r1, t0, s1                  ; normal-map texel (a = gloss)
mad r1.xyz, r1, c4.x, c4.y        ; N = 2n - 1
dp3 r2.x, r1, r1
rsq r2.x, r2.x
mul r1.xyz, r1, r2.x              ; N = normalize(N)
mov r3.xyz, t1
dp3 r2.y, r3, r3                  ; |L|^2
rsq r2.z, r2.y
mul r3.xyz, r3, r2.z              ; L = normalize(t1)
mov r4.xyz, t2
dp3 r2.w, r4, r4
rsq r2.w, r2.w
mad r4.xyz, r4, r2.w, r3          ; normalize(t2) + L
dp3 r5.x, r4, r4
rsq r5.x, r5.x
mul r4.xyz, r4, r5.x              ; H
dp3_sat r5.y, r1, r3              ; diffuse = sat(N.L)
dp3_sat r5.z, r1, r4              ; sat(N.H)
pow r6.w, r5.z, c4.z              ; sat(N.H)^24
mul r5.w, r6.w, r1.w              ; specular = ... * gloss
mad_sat r6.x, r2.y, c5.y, c5.x    ; attenuation = sat(1 - 0.12 |L|^2)
mul r5.yw, r5, r6.x               ; diffuse, specular *= attenuation
mul r0, r0, v0                    ; albedo *= vertex colour
mul r6.xyz, r5.y, c0              ; diffuse * light colour
add r6.xyz, r6, c2                ; + ambient
mul r6.xyz, r6, r0                ; * albedo
mad r6.xyz, r5.w, c1, r6          ; + specular * specular colour
lrp r0.xyz, t2.w, c3, r6          ; fog: c * fog colour + (1 - c) * colour
mov oC0, r0
";
/// W8_PS as tokens (150 DWORDs).
pub const W8_PS_TOKENS: &[u32] = &[
    0xFFFF0200, 0x05000051, 0xA00F0004, 0x40000000, 0xBF800000, 0x41C00000, 0x00000000, 0x05000051,
    0xA00F0005, 0x3F800000, 0xBDF5C28F, 0x00000000, 0x00000000, 0x0200001F, 0x80000000, 0xB0030000,
    0x0200001F, 0x80000000, 0xB0070001, 0x0200001F, 0x80000000, 0xB00F0002, 0x0200001F, 0x80000000,
    0x900F0000, 0x0200001F, 0x90000000, 0xA00F0800, 0x0200001F, 0x90000000, 0xA00F0801, 0x03000042,
    0x800F0000, 0xB0E40000, 0xA0E40800, 0x03000042, 0x800F0001, 0xB0E40000, 0xA0E40801, 0x04000004,
    0x80070001, 0x80E40001, 0xA0000004, 0xA0550004, 0x03000008, 0x80010002, 0x80E40001, 0x80E40001,
    0x02000007, 0x80010002, 0x80000002, 0x03000005, 0x80070001, 0x80E40001, 0x80000002, 0x02000001,
    0x80070003, 0xB0E40001, 0x03000008, 0x80020002, 0x80E40003, 0x80E40003, 0x02000007, 0x80040002,
    0x80550002, 0x03000005, 0x80070003, 0x80E40003, 0x80AA0002, 0x02000001, 0x80070004, 0xB0E40002,
    0x03000008, 0x80080002, 0x80E40004, 0x80E40004, 0x02000007, 0x80080002, 0x80FF0002, 0x04000004,
    0x80070004, 0x80E40004, 0x80FF0002, 0x80E40003, 0x03000008, 0x80010005, 0x80E40004, 0x80E40004,
    0x02000007, 0x80010005, 0x80000005, 0x03000005, 0x80070004, 0x80E40004, 0x80000005, 0x03000008,
    0x80120005, 0x80E40001, 0x80E40003, 0x03000008, 0x80140005, 0x80E40001, 0x80E40004, 0x03000020,
    0x80080006, 0x80AA0005, 0xA0AA0004, 0x03000005, 0x80080005, 0x80FF0006, 0x80FF0001, 0x04000004,
    0x80110006, 0x80550002, 0xA0550005, 0xA0000005, 0x03000005, 0x800A0005, 0x80E40005, 0x80000006,
    0x03000005, 0x800F0000, 0x80E40000, 0x90E40000, 0x03000005, 0x80070006, 0x80550005, 0xA0E40000,
    0x03000002, 0x80070006, 0x80E40006, 0xA0E40002, 0x03000005, 0x80070006, 0x80E40006, 0x80E40000,
    0x04000004, 0x80070006, 0x80FF0005, 0xA0E40001, 0x80E40006, 0x04000012, 0x80070000, 0xB0FF0002,
    0xA0E40003, 0x80E40006, 0x02000001, 0x800F0800, 0x80E40000, 0x0000FFFF,
];
