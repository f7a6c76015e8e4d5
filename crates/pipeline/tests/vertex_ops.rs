//! Fixed-function per-vertex and per-pixel maths: fog factors at chosen
//! depths for every mode and the fog precedence rules, lit vertices
//! against the lighting equation computed by hand, texture-coordinate
//! generation and transforms, point sizes and sprites, vertex blending.

use softhal_pipeline::fog::{
    apply_fog, fog_factor, table_fog_factor, table_fog_uses_w, vertex_fog_factor, FogMode,
    FogSource, FogState,
};
use softhal_pipeline::lighting::{
    light_vertex, Light, LightType, LightingState, Material, MaterialSource, MAX_ACTIVE_LIGHTS,
};
use softhal_pipeline::point::{point_size, point_sprite_texcoord, PointState};
use softhal_pipeline::texgen::{
    expand_to_4, generate, project, reflection_vector, transform_tex_coords, TexCoordIndexMode,
    TexCoords, TextureTransformFlags,
};
use softhal_pipeline::vertex_blend::{
    blend_indices, blend_normal, blend_position, blend_weights, tween, BlendIndexEncoding,
    VertexBlend,
};
use softhal_pipeline::Matrix;

fn near(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-5
}

#[test]
fn fog_factors_every_mode() {
    use FogMode as M;
    assert_eq!(fog_factor(M::Linear, 15.0, 10.0, 20.0, 0.0), 0.5);
    assert_eq!(fog_factor(M::Linear, 5.0, 10.0, 20.0, 0.0), 1.0);
    assert_eq!(fog_factor(M::Linear, 25.0, 10.0, 20.0, 0.0), 0.0);
    assert_eq!(fog_factor(M::Linear, 17.5, 10.0, 20.0, 0.0), 0.25);
    // start == end: a step at `end`.
    assert_eq!(fog_factor(M::Linear, 9.9, 10.0, 10.0, 0.0), 1.0);
    assert_eq!(fog_factor(M::Linear, 10.0, 10.0, 10.0, 0.0), 0.0);
    assert_eq!(fog_factor(M::Exp, 10.0, 0.0, 0.0, 0.1), (-1.0f32).exp());
    assert_eq!(fog_factor(M::Exp, 0.0, 0.0, 0.0, 0.1), 1.0);
    assert_eq!(fog_factor(M::Exp2, 10.0, 0.0, 0.0, 0.1), (-1.0f32).exp());
    assert_eq!(fog_factor(M::Exp2, 20.0, 0.0, 0.0, 0.1), (-4.0f32).exp());
    assert_eq!(fog_factor(M::None, 1e9, 0.0, 1.0, 1.0), 1.0);
    assert_eq!(fog_factor(M::Linear, f32::NAN, 0.0, 1.0, 1.0), 1.0);
    assert_eq!(M::from_d3d(3), Some(M::Linear));
    assert_eq!(M::from_d3d(4), None);
}

#[test]
fn vertex_and_table_fog() {
    let st = FogState {
        enable: true,
        start: 0.0,
        end: 26.0,
        ..FogState::default()
    };
    // Camera-space (3, 4, 12): z = 12, range = 13.
    assert_eq!(
        vertex_fog_factor(&st, FogMode::Linear, [3.0, 4.0, 12.0]),
        14.0 / 26.0
    );
    let ranged = FogState {
        range_fog: true,
        ..st
    };
    assert_eq!(
        vertex_fog_factor(&ranged, FogMode::Linear, [3.0, 4.0, 12.0]),
        0.5
    );
    // Table fog: z or w.
    let t = FogState {
        start: 0.5,
        end: 1.0,
        ..st
    };
    assert_eq!(
        table_fog_factor(&t, FogMode::Linear, 0.75, 100.0, false),
        0.5
    );
    assert_eq!(
        table_fog_factor(&t, FogMode::Linear, 0.75, 0.625, true),
        0.75
    );
    // Perspective projections (_34 = 1, _44 = 0) use w; orthogonal ones z.
    let mut persp = Matrix::IDENTITY;
    persp.0[2][3] = 1.0;
    persp.0[3][3] = 0.0;
    assert!(table_fog_uses_w(&persp));
    assert!(!table_fog_uses_w(&Matrix::IDENTITY));
}

#[test]
fn fog_precedence() {
    let mut st = FogState {
        enable: true,
        table_mode: FogMode::Exp,
        vertex_mode: FogMode::Linear,
        ..FogState::default()
    };
    // Table fog wins, for every vertex kind.
    assert_eq!(st.source(false), FogSource::Table(FogMode::Exp));
    assert_eq!(st.source(true), FogSource::Table(FogMode::Exp));
    st.table_mode = FogMode::None;
    assert_eq!(st.source(false), FogSource::Vertex(FogMode::Linear));
    // Pre-transformed vertices: specular alpha.
    assert_eq!(st.source(true), FogSource::SpecularAlpha);
    st.vertex_mode = FogMode::None;
    assert_eq!(st.source(false), FogSource::SpecularAlpha);
    st.enable = false;
    assert_eq!(st.source(false), FogSource::None);
}

#[test]
fn fog_blend() {
    // f = 0.25: rgb = 0.25·c + 0.75·fog; alpha unchanged.
    let got = apply_fog([1.0, 0.0, 0.5, 0.3], 0x00FF_FF00, 0.25);
    assert_eq!(got, [1.0, 0.75, 0.125, 0.3]);
    assert_eq!(apply_fog([0.5; 4], 0xFFFF_FFFF, 1.0), [0.5; 4]);
    assert_eq!(apply_fog([0.5; 4], 0x0000_0000, 0.0), [0.0, 0.0, 0.0, 0.5]);
}

fn white_light(kind: LightType) -> Light {
    Light {
        kind,
        diffuse: [1.0; 4],
        specular: [1.0; 4],
        ambient: [0.0; 4],
        position: [0.0; 3],
        direction: [0.0, 0.0, 1.0],
        range: 1000.0,
        falloff: 1.0,
        attenuation0: 1.0,
        attenuation1: 0.0,
        attenuation2: 0.0,
        theta: 0.5,
        phi: 1.0,
    }
}

fn white_material() -> Material {
    Material {
        diffuse: [1.0; 4],
        ..Material::default()
    }
}

#[test]
fn directional_light_by_hand() {
    let light = Light {
        diffuse: [1.0, 0.5, 0.25, 1.0],
        specular: [1.0; 4],
        ambient: [0.25; 4],
        ..white_light(LightType::Directional)
    };
    let state = LightingState {
        lights: vec![light],
        material: Material {
            diffuse: [0.5, 0.5, 0.5, 0.75],
            ambient: [1.0; 4],
            specular: [0.5; 4],
            emissive: [0.125, 0.0, 0.0, 0.0],
            power: 2.0,
        },
        ambient: [0.125; 4],
        ..LightingState::default()
    };
    // Vertex facing the camera, light shining along +z: N·L = 1, N·H = 1.
    // diffuse = Me + Ma·(Ga + La) + Md·Ld = (0.125 + 0.375 + 0.5,
    // 0.375 + 0.25, 0.375 + 0.125); specular = Ms·Ls·1² = 0.5.
    let (d, s) = light_vertex([0.0, 0.0, 5.0], [0.0, 0.0, -1.0], None, None, &state);
    assert_eq!(d, [1.0, 0.625, 0.5, 0.75]);
    assert_eq!(s, [0.5, 0.5, 0.5, 0.5]);
    // Facing away: only emissive + ambient; no specular.
    let (d, s) = light_vertex([0.0, 0.0, 5.0], [0.0, 0.0, 1.0], None, None, &state);
    assert_eq!(d, [0.5, 0.375, 0.375, 0.75]);
    assert_eq!(s, [0.0, 0.0, 0.0, 0.5]);
}

#[test]
fn point_light_attenuation_and_range() {
    let mut light = Light {
        position: [0.0, 4.0, 10.0],
        attenuation0: 1.0,
        attenuation1: 0.5,
        attenuation2: 0.25,
        ..white_light(LightType::Point)
    };
    let state = |l: Light| LightingState {
        lights: vec![l],
        material: white_material(),
        ..LightingState::default()
    };
    // d = 4: 1 / (1 + 0.5·4 + 0.25·16) = 1/7; N·L = 1.
    let (d, _) = light_vertex([0.0, 0.0, 10.0], [0.0, 1.0, 0.0], None, None, &state(light));
    assert_eq!(d, [1.0 / 7.0, 1.0 / 7.0, 1.0 / 7.0, 1.0]);
    // Out of range: no contribution.
    light.range = 3.9;
    let (d, _) = light_vertex([0.0, 0.0, 10.0], [0.0, 1.0, 0.0], None, None, &state(light));
    assert_eq!(d, [0.0, 0.0, 0.0, 1.0]);
    // N·L = cos 60° = 0.5 with no attenuation.
    let light = Light {
        position: [0.0, 4.0, 10.0],
        ..white_light(LightType::Point)
    };
    let n = [0.0, 0.5, -(0.75f32.sqrt())];
    let (d, _) = light_vertex([0.0, 0.0, 10.0], n, None, None, &state(light));
    assert!(near(d[0], 0.5), "{d:?}");
}

#[test]
fn spot_light_cone() {
    // Light at the origin pointing +z; vertex at (6, 0, 8): rho = 0.8.
    let light = Light {
        theta: 2.0 * 0.9f32.acos(),
        phi: 2.0 * 0.7f32.acos(),
        falloff: 2.0,
        ..white_light(LightType::Spot)
    };
    let state = LightingState {
        lights: vec![light],
        material: white_material(),
        ..LightingState::default()
    };
    let normal = [-0.6, 0.0, -0.8]; // towards the light: N·L = 1
                                    // ((0.8 − 0.7) / (0.9 − 0.7))² = 0.25.
    let (d, _) = light_vertex([6.0, 0.0, 8.0], normal, None, None, &state);
    assert!(near(d[0], 0.25), "{d:?}");
    // Inside the inner cone: full; outside the outer cone: none.
    let (d, _) = light_vertex([0.0, 0.0, 8.0], [0.0, 0.0, -1.0], None, None, &state);
    assert_eq!(d[0], 1.0);
    let (d, _) = light_vertex([8.0, 0.0, 2.0], [-1.0, 0.0, 0.0], None, None, &state);
    assert_eq!(d[0], 0.0);
}

#[test]
fn specular_local_and_infinite_viewer() {
    let light = Light {
        diffuse: [0.0; 4],
        ..white_light(LightType::Directional)
    };
    let mut state = LightingState {
        lights: vec![light],
        material: Material {
            specular: [1.0; 4],
            power: 2.0,
            ..Material::default()
        },
        local_viewer: false,
        ..LightingState::default()
    };
    let n = [0.0, 0.6, -0.8];
    // Infinite viewer: V = (0, 0, −1) = L → H = (0, 0, −1), N·H = 0.8.
    let (_, s) = light_vertex([3.0, 0.0, 4.0], n, None, None, &state);
    assert!(near(s[0], 0.64), "{s:?}");
    // Local viewer: V = −P/|P| = (−0.6, 0, −0.8); H = normalize(L + V).
    state.local_viewer = true;
    let h = [-0.6f32, 0.0, -1.8];
    let hl = (h[0] * h[0] + h[2] * h[2]).sqrt();
    let ndh = (n[1] * h[1] + n[2] * h[2]) / hl;
    let (_, s) = light_vertex([3.0, 0.0, 4.0], n, None, None, &state);
    assert!(near(s[0], ndh * ndh), "{s:?} vs {}", ndh * ndh);
    // NORMALIZENORMALS: a normal of length 2 gives the same result.
    state.normalize_normals = true;
    let (_, s2) = light_vertex([3.0, 0.0, 4.0], n.map(|c| 2.0 * c), None, None, &state);
    assert!(near(s2[0], s[0]));
}

#[test]
fn material_sources_and_light_cap() {
    let light = Light {
        ambient: [0.5; 4],
        ..white_light(LightType::Directional)
    };
    let mut state = LightingState {
        lights: vec![light],
        material: Material {
            diffuse: [0.25; 4],
            ambient: [0.0; 4],
            ..Material::default()
        },
        diffuse_source: MaterialSource::Color1,
        ambient_source: MaterialSource::Color2,
        ..LightingState::default()
    };
    let vd = Some([0.5, 0.5, 0.5, 0.25]);
    let vs = Some([1.0, 0.0, 0.0, 1.0]);
    // Md = vertex diffuse (0.5, alpha 0.25), Ma = vertex specular (1, 0, 0).
    // diffuse = Ma·La + Md·Ld = (0.5 + 0.5, 0 + 0.5, 0 + 0.5).
    let (d, _) = light_vertex([0.0, 0.0, 1.0], [0.0, 0.0, -1.0], vd, vs, &state);
    assert_eq!(d, [1.0, 0.5, 0.5, 0.25]);
    // Missing vertex colours fall back to the material.
    let (d, _) = light_vertex([0.0, 0.0, 1.0], [0.0, 0.0, -1.0], None, None, &state);
    assert_eq!(d, [0.25, 0.25, 0.25, 0.25]);
    // COLORVERTEX off: material only.
    state.color_vertex = false;
    let (d, _) = light_vertex([0.0, 0.0, 1.0], [0.0, 0.0, -1.0], vd, vs, &state);
    assert_eq!(d, [0.25, 0.25, 0.25, 0.25]);
    assert_eq!(MaterialSource::from_d3d(2), Some(MaterialSource::Color2));
    // Only MAX_ACTIVE_LIGHTS lights count.
    let dim = Light {
        diffuse: [0.0625; 4],
        ..white_light(LightType::Directional)
    };
    let state = LightingState {
        lights: vec![dim; MAX_ACTIVE_LIGHTS + 4],
        material: white_material(),
        ..LightingState::default()
    };
    let (d, _) = light_vertex([0.0, 0.0, 1.0], [0.0, 0.0, -1.0], None, None, &state);
    assert_eq!(d[0], 0.0625 * MAX_ACTIVE_LIGHTS as f32);
}

#[test]
fn texcoord_generation() {
    let pass = TexCoords {
        v: [0.25, 0.5, 0.0, 0.0],
        count: 2,
    };
    let (p, n) = ([1.0, 2.0, 3.0], [0.0, 0.0, -1.0]);
    assert_eq!(
        generate(TexCoordIndexMode::PassThru, pass, p, n, false),
        pass
    );
    assert_eq!(
        generate(TexCoordIndexMode::CameraSpaceNormal, pass, p, n, false).v,
        [0.0, 0.0, -1.0, 0.0]
    );
    assert_eq!(
        generate(TexCoordIndexMode::CameraSpacePosition, pass, p, n, false),
        TexCoords {
            v: [1.0, 2.0, 3.0, 0.0],
            count: 3
        }
    );
    // Facing the viewer: R = 2(E·N)N − E = (0, 0, −1) → sphere centre.
    assert_eq!(reflection_vector(p, n, false), [0.0, 0.0, -1.0]);
    assert_eq!(
        generate(TexCoordIndexMode::SphereMap, pass, p, n, false).v,
        [0.5, 0.5, 0.0, 0.0]
    );
    // A 45° normal reflects the view ray to +x: R = (1, 0, 0);
    // m = 2·sqrt(1 + 1) → u = 1/(2√2) + ½.
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let r = reflection_vector(p, [s, 0.0, -s], false);
    assert!(
        near(r[0], 1.0) && near(r[1], 0.0) && near(r[2], 0.0),
        "{r:?}"
    );
    let uv = generate(TexCoordIndexMode::SphereMap, pass, p, [s, 0.0, -s], false).v;
    assert!(near(uv[0], 0.5 + 1.0 / (2.0 * 2.0f32.sqrt())) && near(uv[1], 0.5));
    // Local viewer: E from the position; vertex on the axis gives the same.
    assert_eq!(
        reflection_vector([0.0, 0.0, 4.0], n, true),
        [0.0, 0.0, -1.0]
    );
}

#[test]
fn texture_transforms() {
    // Missing components: first 1, the rest 0.
    let c = |v: [f32; 4], count| TexCoords { v, count };
    assert_eq!(
        expand_to_4(c([0.5, 9.0, 9.0, 9.0], 1)),
        [0.5, 1.0, 0.0, 0.0]
    );
    assert_eq!(
        expand_to_4(c([0.5, 0.25, 9.0, 9.0], 2)),
        [0.5, 0.25, 1.0, 0.0]
    );
    assert_eq!(
        expand_to_4(c([0.5, 0.25, 2.0, 9.0], 3)),
        [0.5, 0.25, 2.0, 1.0]
    );
    // 2D coordinates: translation in the third row applies, the fourth not.
    let mut m = Matrix::IDENTITY;
    m.0[2][0] = 0.5;
    m.0[2][1] = 0.25;
    m.0[3][0] = 100.0;
    let flags = TextureTransformFlags {
        count: 2,
        projected: false,
    };
    let out = transform_tex_coords(c([0.25, 0.5, 0.0, 0.0], 2), flags, &m);
    assert_eq!(
        (out.v, out.count, out.projected),
        ([0.75, 0.75, 0.0, 0.0], 2, false)
    );
    // DISABLE: unchanged.
    let off = transform_tex_coords(
        c([0.25, 0.5, 0.0, 0.0], 2),
        TextureTransformFlags::default(),
        &m,
    );
    assert_eq!(off.v, [0.25, 0.5, 0.0, 0.0]);
    // COUNT3 | PROJECTED: divide by the third component per pixel.
    let flags = TextureTransformFlags {
        count: 3,
        projected: true,
    };
    let out = transform_tex_coords(c([2.0, 4.0, 2.0, 0.0], 3), flags, &Matrix::IDENTITY);
    assert_eq!(project(out), [1.0, 2.0, 2.0, 0.0]);
    let zero = transform_tex_coords(c([2.0, 4.0, 0.0, 0.0], 3), flags, &Matrix::IDENTITY);
    assert_eq!(project(zero), [0.0, 0.0, 0.0, 0.0]);
}

#[test]
fn point_sizes_and_sprites() {
    let st = PointState {
        size: 2.0,
        max: 256.0,
        scale_enable: true,
        scale: [0.0, 0.0, 1.0],
        ..PointState::default()
    };
    // 100 · 2 · sqrt(1 / (0 + 0 + 1·2²)) = 100.
    assert_eq!(point_size(&st, None, 2.0, 100.0, false), 100.0);
    // The vertex PSIZE replaces POINTSIZE.
    assert_eq!(point_size(&st, Some(1.0), 2.0, 100.0, false), 50.0);
    // Pre-transformed: no scaling.
    assert_eq!(point_size(&st, None, 2.0, 100.0, true), 2.0);
    // Clamps: POINTSIZE_MAX 64, POINTSIZE_MIN 1.
    let capped = PointState { max: 64.0, ..st };
    assert_eq!(point_size(&capped, None, 1.0, 100.0, false), 64.0);
    let small = PointState {
        size: 0.25,
        scale_enable: false,
        ..st
    };
    assert_eq!(point_size(&small, None, 1.0, 100.0, false), 1.0);
    // Sprite coordinates across a 4-pixel sprite centred on (10, 10).
    assert_eq!(
        point_sprite_texcoord(8.5, 11.5, 10.0, 10.0, 4.0),
        [0.125, 0.875]
    );
    assert_eq!(
        point_sprite_texcoord(10.0, 10.0, 10.0, 10.0, 4.0),
        [0.5, 0.5]
    );
    assert_eq!(point_sprite_texcoord(8.0, 8.0, 10.0, 10.0, 4.0), [0.0, 0.0]);
}

#[test]
fn vertex_blending() {
    assert_eq!(VertexBlend::from_d3d(2), Some(VertexBlend::Weights2));
    assert_eq!(VertexBlend::from_d3d(255), Some(VertexBlend::Tweening));
    assert_eq!(VertexBlend::from_d3d(256), Some(VertexBlend::Weights0));
    assert_eq!(VertexBlend::from_d3d(4), None);
    assert_eq!(
        blend_weights(VertexBlend::Weights2, &[0.25, 0.5]),
        [0.25, 0.5, 0.25, 0.0]
    );
    assert_eq!(
        blend_weights(VertexBlend::Weights1, &[0.75]),
        [0.75, 0.25, 0.0, 0.0]
    );
    assert_eq!(
        blend_weights(VertexBlend::Weights3, &[0.5]),
        [0.5, 0.0, 0.0, 0.5]
    );
    assert_eq!(
        blend_weights(VertexBlend::Disable, &[]),
        [1.0, 0.0, 0.0, 0.0]
    );
    assert_eq!(
        blend_indices(0x0403_0201, BlendIndexEncoding::Ubyte4),
        [1, 2, 3, 4]
    );
    assert_eq!(
        blend_indices(0x0403_0201, BlendIndexEncoding::D3dColor),
        [3, 2, 1, 4]
    );
    // Two translations blended 0.25 / 0.75.
    let t = |x: f32| {
        let mut m = Matrix::IDENTITY;
        m.0[3][0] = x;
        m
    };
    let mats = [t(4.0), t(8.0)];
    let w = blend_weights(VertexBlend::Weights1, &[0.25]);
    assert_eq!(
        blend_position([1.0, 2.0, 3.0], w, [0, 1, 2, 3], &mats),
        [8.0, 2.0, 3.0, 1.0]
    );
    // Indexed: both weights on matrix 1; indices past the list are skipped.
    assert_eq!(
        blend_position([1.0, 2.0, 3.0], w, [1, 1, 9, 9], &mats),
        [9.0, 2.0, 3.0, 1.0]
    );
    // Normals ignore translation.
    assert_eq!(
        blend_normal([0.0, 1.0, 0.0], w, [0, 1, 2, 3], &mats),
        [0.0, 1.0, 0.0]
    );
    assert_eq!(
        tween([0.0, 2.0, 4.0], [4.0, 2.0, 0.0], 0.25),
        [1.0, 2.0, 3.0]
    );
}
