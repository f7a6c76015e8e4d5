//! Shared test data: a capture holding every record type.

use softhal_capture::record::*;

fn answer(ddrval: u32) -> Option<Answer> {
    Some(Answer {
        ddrval,
        ..Answer::default()
    })
}

/// A capture holding every record type, with and without answers.
pub fn every_record() -> Capture {
    let mut rs = [0u32; 256];
    rs[7] = 1;
    rs[22] = 3;
    let mut rs_out = rs;
    rs_out[8] = 0x3f80_0000;
    let strip = softhal_wire::text::assemble(
        "VIEWPORTINFO { dwX=0 dwY=0 dwWidth=16 dwHeight=16 }\nRENDERSTATE { RenderState=ZENABLE dwState=TRUE }\nTRIANGLESTRIP count=1 wVStart=0",
    )
    .unwrap();
    let mut vertices = Vec::new();
    for (x, c) in [(0.0f32, 0xff00_00ffu32), (8.0, 0x8000_ff00), (f32::NAN, 0)] {
        for f in [x, -0.0, 0.5, 1.0] {
            vertices.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        vertices.extend_from_slice(&c.to_le_bytes());
    }
    Capture {
        records: vec![
            Record::CreateSurface {
                handle: 0x1101_0001,
                spec: SurfaceSpec {
                    kind: SurfaceKindCode::RenderTarget as u32,
                    format: 22,
                    width: 16,
                    height: 16,
                    depth: 1,
                    mip_levels: 1,
                },
                init: vec![],
                answer: answer(0),
            },
            Record::CreateSurface {
                handle: 0x42,
                spec: SurfaceSpec {
                    kind: SurfaceKindCode::CubeTexture as u32,
                    format: 21,
                    width: 4,
                    height: 4,
                    depth: 1,
                    mip_levels: 0,
                },
                init: vec![1, 2, 3, 4, 5],
                answer: None,
            },
            Record::CreateSurface {
                handle: 0,
                spec: SurfaceSpec {
                    kind: 99,
                    format: 0x3154_5844,
                    width: u32::MAX,
                    height: 7,
                    depth: 9,
                    mip_levels: 3,
                },
                init: vec![],
                answer: answer(0x8876_0064),
            },
            Record::CreateSurface {
                handle: 0x43,
                spec: SurfaceSpec {
                    kind: SurfaceKindCode::ImplicitVertexBuffer as u32,
                    format: 0,
                    width: 64,
                    height: 1,
                    depth: 1,
                    mip_levels: 1,
                },
                init: vec![0; 64],
                answer: answer(0),
            },
            Record::DestroySurface {
                handle: 0x42,
                answer: answer(0),
            },
            Record::Lock {
                handle: 0x43,
                api: LockApi::Lock,
                face: 0,
                level: 0,
                flags: 3,
                answer: answer(0),
            },
            Record::Lock {
                handle: 0x42,
                api: LockApi::LockLevel,
                face: 5,
                level: 2,
                flags: 0,
                answer: None,
            },
            Record::Unlock {
                handle: 0x43,
                face: 0,
                level: 0,
                offset: 12,
                bytes: vec![0xde, 0xad],
                answer: answer(0),
            },
            Record::ContextCreate {
                handle: 0x2201_0001,
                render_target: 0x1101_0001,
                depth: 0,
                answer: answer(0),
            },
            Record::DrawPrimitives2 {
                call: Box::new(Dp2Call {
                    context: 0x2201_0001,
                    flags: 0x3,
                    vertex_type: 0x44,
                    commands: 0x44,
                    command_offset: 2,
                    command_length: strip.len() as u32,
                    vertex_surface: 0,
                    vertex_offset: 0,
                    vertex_length: 3,
                    req_vertex_buf_size: 0,
                    req_command_buf_size: 0,
                    vertex_size: 20,
                    command_bytes: strip.clone(),
                    user_vertices: Some(vertices.clone()),
                    rstates: Some(Box::new(rs)),
                }),
                answer: Some(Answer {
                    ddrval: 0,
                    error_offset: 0,
                    flags: 0x3,
                    rstates: Some(Box::new(rs_out)),
                    ..Answer::default()
                }),
            },
            // Malformed stream, invalid FVF, ragged vertex bytes, lying length.
            Record::DrawPrimitives2 {
                call: Box::new(Dp2Call {
                    context: 7,
                    flags: 0xffff_ffff,
                    vertex_type: 0x1,
                    commands: 9,
                    command_offset: 3,
                    command_length: 1000,
                    vertex_surface: 0x43,
                    vertex_offset: 5,
                    vertex_length: 2,
                    req_vertex_buf_size: 77,
                    req_command_buf_size: 88,
                    vertex_size: 0,
                    command_bytes: vec![0x08, 0x00, 0x03, 0x00, 0x07],
                    user_vertices: Some(vec![1, 2, 3]),
                    rstates: None,
                }),
                answer: Some(Answer {
                    ddrval: 0x8876_0BB8,
                    error_offset: 3,
                    flags: 0xffff_ffff,
                    ..Answer::default()
                }),
            },
            // Empty everything.
            Record::DrawPrimitives2 {
                call: Box::new(Dp2Call {
                    user_vertices: Some(vec![]),
                    ..Dp2Call::default()
                }),
                answer: None,
            },
            Record::Clear2 {
                call: Clear2Call {
                    context: 0x2201_0001,
                    flags: 0x7,
                    color: 0xff10_2030,
                    depth_bits: f32::NAN.to_bits() | 1,
                    stencil: 5,
                    rects: vec![[0, 0, 16, 16], [-5, i32::MIN, i32::MAX, 3]],
                },
                answer: answer(0),
            },
            Record::Clear2 {
                call: Clear2Call::default(),
                answer: None,
            },
            Record::ValidateTextureStageState {
                context: 0x2201_0001,
                flags: 1,
                reserved: 2,
                answer: Some(Answer {
                    ddrval: 0x8876_081c,
                    passes: 0,
                    ..Answer::default()
                }),
            },
            Record::Flip {
                handle: 0x1101_0001,
                answer: Some(Answer {
                    ddrval: 0,
                    checksum: 0x0123_4567_89ab_cdef,
                    ..Answer::default()
                }),
            },
            Record::CompleteFlips,
            Record::Present {
                handle: 0x1101_0001,
                answer: Some(Answer {
                    ddrval: 0,
                    checksum: u64::MAX,
                    ..Answer::default()
                }),
            },
            Record::Present {
                handle: 5,
                answer: None,
            },
            Record::CompleteWork,
            Record::ContextDestroy {
                handle: 0x2201_0001,
                answer: answer(0),
            },
            Record::RenderContextCreate {
                handle: 3,
                engine: 0,
                answer: answer(0),
            },
            Record::RenderContextCreate {
                handle: 0,
                engine: 77,
                answer: None,
            },
            Record::Submit {
                call: Box::new(SubmitCall {
                    context: 3,
                    flags: 0x1,
                    command_offset: 4,
                    command_length: 200,
                    num_allocations: 2,
                    num_patch_locations: 1,
                    req_command_buffer_size: 1 << 20,
                    req_allocation_list_size: 0,
                    req_patch_list_size: 9,
                    command_bytes: (0..=255u8).cycle().take(200).collect(),
                    allocations: vec![
                        SubmitAllocation {
                            handle: 5,
                            value: 1,
                            surface: 0x1101_0001,
                        },
                        SubmitAllocation {
                            handle: 0xdead,
                            value: 0xffff_ffff,
                            surface: 0,
                        },
                    ],
                    patches: vec![softhal_submit::PatchLocation {
                        allocation_index: 1,
                        slot_id: 2,
                        driver_id: 3,
                        allocation_offset: 4,
                        patch_offset: 8,
                        split_offset: 6,
                    }],
                }),
                answer: Some(Answer {
                    ddrval: 0x8876_0879,
                    sizes: [1 << 20, 256, 1024],
                    queued: 1,
                    ..Answer::default()
                }),
            },
            // Lying counts, nothing behind them.
            Record::Submit {
                call: Box::new(SubmitCall {
                    num_allocations: 4097,
                    num_patch_locations: 3,
                    command_length: 12,
                    ..SubmitCall::default()
                }),
                answer: None,
            },
            Record::RenderContextDestroy {
                handle: 3,
                answer: answer(0),
            },
            Record::DxVersion { version: 0x700 },
            Record::SetColorKey {
                handle: 1,
                enable: 1,
                low: 0xff00ff,
                high: 0xff00ff,
                answer: answer(0),
            },
            Record::SetColorKey {
                handle: 1,
                enable: 0,
                low: 0,
                high: 0,
                answer: None,
            },
        ],
    }
}
