//! The W7 and W8 benchmark shaders (`docs/benchmarks.md`, "W7 and W8"),
//! as Direct3D assembly and as the token DWORDs the workload definition gives.
#![allow(dead_code)]

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
