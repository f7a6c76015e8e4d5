/* embedding.c: the minimal emulator-style C host of docs/embedding.md.
 *
 * Creates a driver and a render target, records a capture of everything
 * it does (argv[1]), writes a DrawPrimitives2 command buffer in DP2
 * assembly (softhal_assemble) with the header's Direct3D constants, draws
 * a Gouraud triangle from user-memory vertices, reads the pixels back
 * (softhal_present), and prints the command buffer as text
 * (softhal_disassemble). Replay the capture with
 *   softhal render CAPTURE -o out --check
 * c_smoke.rs builds and runs this file and replays its capture. */
#include <stdio.h>
#include <string.h>

#include "softhal.h"

#define W 64
#define H 64

#define TRY(call)                                                             \
    do {                                                                      \
        HRESULT hr_ = (call);                                                 \
        if (hr_ != D3D_OK) {                                                  \
            fprintf(stderr, "%s failed: 0x%08X\n", #call, (unsigned)hr_);     \
            return 1;                                                         \
        }                                                                     \
    } while (0)

/* D3DFVF_XYZRHW | D3DFVF_DIFFUSE: a pre-transformed, coloured vertex. */
typedef struct {
    float x, y, z, rhw;
    DWORD diffuse;
} TLVERTEX;

static softhal_surface *create(softhal_driver *d, DWORD kind, DWORD format, DWORD w, DWORD h) {
    SOFTHAL_SURFACE_DESC desc;
    softhal_surface *s = NULL;
    memset(&desc, 0, sizeof desc);
    desc.dwSize = sizeof desc;
    desc.dwKind = kind;
    desc.dwFormat = format;
    desc.dwWidth = w;
    desc.dwHeight = h;
    desc.dwDepth = 1;
    desc.dwMipLevels = 1;
    return softhal_surface_create(d, &desc, &s) == D3D_OK ? s : NULL;
}

int main(int argc, char **argv) {
    const char *capture = argc > 1 ? argv[1] : "embedding.shcap";
    softhal_driver *drv = NULL;
    softhal_surface *rt, *cb;
    SOFTHAL_LOCKED_SURFACE locked;
    D3DHAL_CONTEXTCREATEDATA ccd;
    D3DHAL_CONTEXTDESTROYDATA cdd;
    D3DHAL_DRAWPRIMITIVES2DATA dp2;
    static BYTE rgba[W * H * 4];
    BYTE commands[256];
    char text[1024];
    DWORD length = 0, size = 0;
    const char *source =
        "RENDERSTATE { RenderState=D3DRS_CULLMODE dwState=D3DCULL_NONE }\n"
        "VIEWPORTINFO { dwX=0 dwY=0 dwWidth=64 dwHeight=64 }\n"
        "CLEAR { dwFlags=D3DCLEAR_TARGET dwFillColor=0xff203040 dvFillDepth=1.0 }\n"
        "TRIANGLELIST count=1 wVStart=0\n";
    TLVERTEX triangle[3] = {
        {32.0f, 4.0f, 0.5f, 1.0f, 0xFFFF0000u},
        {60.0f, 60.0f, 0.5f, 1.0f, 0xFF00FF00u},
        {4.0f, 60.0f, 0.5f, 1.0f, 0xFF0000FFu},
    };
    const BYTE *corner, *centre;

    /* 1. A driver (1 thread), recording from the start: a capture must
     *    begin before the first context. */
    TRY(softhal_driver_create(1, &drv));
    TRY(softhal_capture_start(drv, capture));

    /* 2. A render target and a command buffer (DirectDraw surfaces). */
    rt = create(drv, SOFTHAL_SURFACE_RENDERTARGET, D3DFMT_X8R8G8B8, W, H);
    cb = create(drv, SOFTHAL_SURFACE_COMMANDBUFFER, 0, sizeof commands, 1);
    if (!rt || !cb) {
        fprintf(stderr, "surface creation failed\n");
        return 1;
    }

    /* 3. D3dContextCreate, as the runtime calls it. */
    memset(&ccd, 0, sizeof ccd);
    ccd.lpDDLcl = drv;
    ccd.lpDDSLcl = rt;
    if (D3dContextCreate(&ccd) != DDHAL_DRIVER_HANDLED || ccd.ddrval != D3D_OK) {
        fprintf(stderr, "D3dContextCreate failed: 0x%08X\n", (unsigned)ccd.ddrval);
        return 1;
    }

    /* 4. The command buffer, written in DP2 assembly and copied into the
     *    command surface through a lock. */
    TRY(softhal_assemble(source, (DWORD)strlen(source), commands, sizeof commands, &length));
    TRY(softhal_surface_lock(cb, 0, &locked));
    memcpy(locked.pBits, commands, length);
    TRY(softhal_surface_unlock(cb));

    /* 5. D3dDrawPrimitives2 with user-memory vertices. */
    memset(&dp2, 0, sizeof dp2);
    dp2.dwhContext = ccd.dwhContext;
    dp2.dwFlags = D3DHALDP2_USERMEMVERTICES;
    dp2.dwVertexType = D3DFVF_XYZRHW | D3DFVF_DIFFUSE;
    dp2.lpDDCommands = cb;
    dp2.dwCommandLength = length;
    dp2.lpVertices = triangle;
    dp2.dwVertexLength = 3;
    dp2.dwVertexSize = sizeof(TLVERTEX); /* in; ddrval shares the slot: out */
    if (D3dDrawPrimitives2(&dp2) != DDHAL_DRIVER_HANDLED || dp2.ddrval != D3D_OK) {
        char why[256];
        softhal_get_last_error(drv, why, sizeof why, NULL);
        fprintf(stderr, "D3dDrawPrimitives2 failed at offset %u: %s\n",
                (unsigned)dp2.dwErrorOffset, why);
        return 1;
    }

    /* 6. The pixels, as RGBA8 rows (a Present: the capture records it with
     *    its checksum). */
    TRY(softhal_present(rt, rgba, W * 4, sizeof rgba));
    corner = &rgba[0];
    centre = &rgba[(40 * W + 32) * 4];
    printf("corner rgba %02x%02x%02x%02x, centre rgba %02x%02x%02x%02x\n", corner[0], corner[1],
           corner[2], corner[3], centre[0], centre[1], centre[2], centre[3]);
    if (corner[0] != 0x20 || corner[1] != 0x30 || corner[2] != 0x40 ||
        (centre[0] == 0x20 && centre[1] == 0x30 && centre[2] == 0x40)) {
        fprintf(stderr, "unexpected pixels\n");
        return 1;
    }

    /* 7. The command buffer as text again. */
    TRY(softhal_disassemble(commands, length, D3DFVF_XYZRHW | D3DFVF_DIFFUSE, text, sizeof text, &size));
    printf("%s", text);

    /* 8. Tear down; destroying the driver would also end the capture. */
    memset(&cdd, 0, sizeof cdd);
    cdd.dwhContext = ccd.dwhContext;
    D3dContextDestroy(&cdd);
    TRY(softhal_capture_stop(drv));
    TRY(softhal_driver_destroy(drv));
    printf("embedding: wrote %s\n", capture);
    return 0;
}
