/* smoke.c: libsofthal from C, as an emulator would use it.
 *
 * Creates a driver, a render target, a depth buffer and a context; fills a
 * DP2 command buffer by hand (render states, viewport, clear, a triangle
 * strip of pre-transformed coloured vertices from user memory); calls
 * D3dDrawPrimitives2; locks the render target and checks pixels. Then sends
 * malformed buffers and checks ddrval, dwErrorOffset and that the pixels
 * drawn earlier are intact; exercises the unknown-command hook, Clear2,
 * ValidateTextureStageState, argument validation and teardown.
 * Exit status 0 = all checks passed. Built and run (also under
 * AddressSanitizer) by crates/capi/tests/c_smoke.rs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "softhal.h"
#include "reference_layout.h"

static int failures = 0;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                          \
        }                                                                        \
    } while (0)

#define CHECK_HR(expr, want)                                                     \
    do {                                                                         \
        HRESULT got_ = (expr);                                                   \
        if (got_ != (HRESULT)(want)) {                                           \
            fprintf(stderr, "%s:%d: %s = 0x%08X, want 0x%08X\n", __FILE__, __LINE__, \
                    #expr, (unsigned)got_, (unsigned)(want));                    \
            failures++;                                                          \
        }                                                                        \
    } while (0)

enum { W = 64, H = 64 };
#define D3DRS_ZENABLE_ 7
#define D3DRS_CULLMODE_ 22
#define D3DZB_TRUE_ 1
#define D3DCULL_NONE_ 1

/* A pre-transformed, coloured vertex: D3DFVF_XYZRHW | D3DFVF_DIFFUSE. */
typedef struct {
    float x, y, z, rhw;
    DWORD color;
} TLVERTEX;
#define FVF_TL (D3DFVF_XYZRHW | D3DFVF_DIFFUSE)
_Static_assert(sizeof(TLVERTEX) == 20, "TLVERTEX");

/* A little DP2 writer over a byte buffer. */
typedef struct {
    BYTE *buf;
    DWORD size;
    DWORD at;
} Writer;

static void put(Writer *w, const void *p, DWORD n) {
    if (w->at + n > w->size) {
        fprintf(stderr, "command buffer overflow\n");
        exit(2);
    }
    memcpy(w->buf + w->at, p, n);
    w->at += n;
}

static void cmd(Writer *w, BYTE op, WORD count) {
    D3DHAL_DP2COMMAND c;
    memset(&c, 0, sizeof c);
    c.bCommand = op;
    c.wPrimitiveCount = count;
    put(w, &c, sizeof c);
}

static void render_state(Writer *w, DWORD state, DWORD value) {
    D3DHAL_DP2RENDERSTATE rs;
    rs.RenderState = state;
    rs.dwState = value;
    put(w, &rs, sizeof rs);
}

static softhal_driver *g_drv;

/* Checks a DP2 result; on a mismatch prints softhal's explanation. */
static void expect_dp2(const D3DHAL_DRAWPRIMITIVES2DATA *d, HRESULT want, DWORD offset, int line) {
    if (d->ddrval != want || d->dwErrorOffset != offset) {
        char msg[256] = "";
        softhal_get_last_error(g_drv, msg, sizeof msg, NULL);
        fprintf(stderr, "smoke.c:%d: DP2 ddrval 0x%08X offset %u, want 0x%08X offset %u (%s)\n", line,
                (unsigned)d->ddrval, (unsigned)d->dwErrorOffset, (unsigned)want, (unsigned)offset, msg);
        failures++;
    }
}
#define EXPECT_DP2(d, want, offset) expect_dp2(&(d), (HRESULT)(want), (offset), __LINE__)

static softhal_surface *make_surface(softhal_driver *d, DWORD kind, DWORD fmt, DWORD w, DWORD h) {
    SOFTHAL_SURFACE_DESC desc;
    softhal_surface *s = NULL;
    memset(&desc, 0, sizeof desc);
    desc.dwSize = sizeof desc;
    desc.dwKind = kind;
    desc.dwFormat = fmt;
    desc.dwWidth = w;
    desc.dwHeight = h;
    desc.dwDepth = 1;
    desc.dwMipLevels = 1;
    CHECK_HR(softhal_surface_create(d, &desc, &s), D3D_OK);
    CHECK(s != NULL);
    return s;
}

static DWORD pixel(softhal_surface *rt, int x, int y) {
    SOFTHAL_LOCKED_SURFACE l;
    DWORD v = 0xDEADBEEF;
    CHECK_HR(softhal_surface_lock(rt, SOFTHAL_LOCK_READONLY, &l), D3D_OK);
    CHECK(l.dwPitch >= W * 4);
    if (l.pBits && (DWORD)(y * l.dwPitch + x * 4 + 4) <= l.dwSize)
        memcpy(&v, (BYTE *)l.pBits + y * l.dwPitch + x * 4, 4);
    CHECK_HR(softhal_surface_unlock(rt), D3D_OK);
    return v;
}

/* Fills the command buffer `cb` with `n` bytes at offset `off`. */
static void upload(softhal_surface *cb, DWORD off, const BYTE *bytes, DWORD n) {
    SOFTHAL_LOCKED_SURFACE l;
    CHECK_HR(softhal_surface_lock(cb, 0, &l), D3D_OK);
    CHECK(l.dwSize >= off + n);
    if (l.pBits && l.dwSize >= off + n) memcpy((BYTE *)l.pBits + off, bytes, n);
    CHECK_HR(softhal_surface_unlock(cb), D3D_OK);
}

/* The hook: skips an unknown opcode 0xEE whose header says how many DWORDs
 * follow it (wPrimitiveCount). */
static int hook_calls = 0;
static HRESULT SOFTHAL_DDI parse_unknown(void *lpvCommands, void **lplpvReturnedCommand) {
    const D3DHAL_DP2COMMAND *c = (const D3DHAL_DP2COMMAND *)lpvCommands;
    hook_calls++;
    if (c->bCommand != 0xEE) return E_FAIL;
    *lplpvReturnedCommand = (BYTE *)lpvCommands + sizeof *c + 4u * c->wPrimitiveCount;
    return D3D_OK;
}

int main(void) {
    softhal_driver *drv = NULL;
    softhal_surface *rt, *z, *cb;
    BYTE bytes[512];
    Writer w = {bytes, sizeof bytes, 0};
    DWORD rstates[D3DHAL_MAX_RSTATES];
    TLVERTEX quad[4] = {
        {8.0f, 8.0f, 0.5f, 1.0f, 0xFFFF0000u},
        {56.0f, 8.0f, 0.5f, 1.0f, 0xFFFF0000u},
        {8.0f, 56.0f, 0.5f, 1.0f, 0xFFFF0000u},
        {56.0f, 56.0f, 0.5f, 1.0f, 0xFFFF0000u},
    };

    CHECK(softhal_version() == SOFTHAL_API_VERSION);
    CHECK_HR(softhal_driver_create(1, &drv), D3D_OK);
    CHECK(drv != NULL);
    g_drv = drv;
    rt = make_surface(drv, SOFTHAL_SURFACE_RENDERTARGET, D3DFMT_A8R8G8B8, W, H);
    z = make_surface(drv, SOFTHAL_SURFACE_DEPTHSTENCIL, D3DFMT_D24S8, W, H);
    cb = make_surface(drv, SOFTHAL_SURFACE_COMMANDBUFFER, 0, 4096, 1);

    /* ---- ContextCreate ---- */
    D3DHAL_CONTEXTCREATEDATA ccd;
    memset(&ccd, 0, sizeof ccd);
    ccd.lpDDLcl = drv;
    ccd.lpDDSLcl = rt;
    ccd.lpDDSZLcl = z;
    CHECK(D3dContextCreate(&ccd) == DDHAL_DRIVER_HANDLED);
    CHECK_HR(ccd.ddrval, D3D_OK);
    CHECK(ccd.dwhContext != 0);

    /* ---- a DP2 buffer by hand ---- */
    cmd(&w, D3DDP2OP_RENDERSTATE, 2);
    render_state(&w, D3DRS_ZENABLE_, D3DZB_TRUE_);
    render_state(&w, D3DRS_CULLMODE_, D3DCULL_NONE_);
    cmd(&w, D3DDP2OP_VIEWPORTINFO, 1);
    {
        D3DHAL_DP2VIEWPORTINFO vp = {0, 0, W, H};
        put(&w, &vp, sizeof vp);
    }
    cmd(&w, D3DDP2OP_CLEAR, 0); /* no rects: the whole viewport */
    {
        D3DHAL_DP2CLEAR clr;
        memset(&clr, 0, sizeof clr);
        clr.dwFlags = D3DCLEAR_TARGET | D3DCLEAR_ZBUFFER;
        clr.dwFillColor = 0xFF203040u;
        clr.dvFillDepth = 1.0f;
        put(&w, &clr, sizeof clr); /* 0 rects still occupy the declared slot */
    }
    cmd(&w, D3DDP2OP_TRIANGLESTRIP, 2);
    {
        D3DHAL_DP2TRIANGLESTRIP ts = {0};
        put(&w, &ts, sizeof ts);
    }
    upload(cb, 0, bytes, w.at);

    D3DHAL_DRAWPRIMITIVES2DATA dp2;
    memset(&dp2, 0, sizeof dp2);
    memset(rstates, 0xAB, sizeof rstates);
    dp2.dwhContext = ccd.dwhContext;
    dp2.dwFlags = D3DHALDP2_USERMEMVERTICES | D3DHALDP2_EXECUTEBUFFER;
    dp2.dwVertexType = FVF_TL;
    dp2.lpDDCommands = cb;
    dp2.dwCommandOffset = 0;
    dp2.dwCommandLength = w.at;
    dp2.lpVertices = quad;
    dp2.dwVertexOffset = 0;
    dp2.dwVertexLength = 4;
    dp2.lpdwRStates = rstates;
    dp2.dwVertexSize = sizeof(TLVERTEX);
    CHECK(D3dDrawPrimitives2(&dp2) == DDHAL_DRIVER_HANDLED);
    EXPECT_DP2(dp2, D3D_OK, 0);
    CHECK(rstates[D3DRS_CULLMODE_] == D3DCULL_NONE_);
    CHECK(rstates[D3DRS_ZENABLE_] == D3DZB_TRUE_);
    CHECK(rstates[0] == 0xABABABABu); /* untouched */

    CHECK(pixel(rt, 32, 32) == 0xFFFF0000u); /* inside the strip: red */
    CHECK(pixel(rt, 9, 9) == 0xFFFF0000u);
    CHECK(pixel(rt, 2, 2) == 0xFF203040u);   /* outside: the clear colour */
    CHECK(pixel(rt, 60, 60) == 0xFF203040u);

    /* ---- malformed: a render state, then an unknown opcode, at offset 16 ---- */
    w.at = 0;
    cmd(&w, D3DDP2OP_RENDERSTATE, 1);
    render_state(&w, D3DRS_CULLMODE_, D3DCULL_NONE_);
    cmd(&w, 0xEE, 1); /* not an opcode; no hook installed */
    {
        DWORD junk = 0;
        put(&w, &junk, 4);
    }
    cmd(&w, D3DDP2OP_CLEAR, 0); /* never reached: would clear the quad */
    {
        D3DHAL_DP2CLEAR clr;
        memset(&clr, 0, sizeof clr);
        clr.dwFlags = D3DCLEAR_TARGET;
        clr.dwFillColor = 0xFF00FF00u;
        put(&w, &clr, sizeof clr);
    }
    upload(cb, 16, bytes, w.at);
    dp2.dwFlags = D3DHALDP2_USERMEMVERTICES;
    dp2.dwCommandOffset = 16;
    dp2.dwCommandLength = w.at;
    dp2.dwVertexSize = sizeof(TLVERTEX);
    CHECK(D3dDrawPrimitives2(&dp2) == DDHAL_DRIVER_HANDLED);
    EXPECT_DP2(dp2, D3DERR_COMMAND_UNPARSED, 16 + 12); /* from the start of the command surface */
    CHECK(pixel(rt, 32, 32) == 0xFFFF0000u); /* the earlier pixels are intact */
    CHECK(pixel(rt, 2, 2) == 0xFF203040u);
    {
        char msg[256];
        DWORD needed = 0;
        CHECK_HR(softhal_get_last_error(drv, msg, sizeof msg, &needed), D3D_OK);
        CHECK(needed > 1 && strlen(msg) + 1 == needed);
        CHECK(strstr(msg, "D3DERR_COMMAND_UNPARSED") != NULL);
    }

    /* ---- with the D3dParseUnknownCommand hook, the same buffer runs ---- */
    CHECK_HR(softhal_set_parse_unknown_command(drv, parse_unknown), D3D_OK);
    dp2.dwVertexSize = sizeof(TLVERTEX);
    CHECK(D3dDrawPrimitives2(&dp2) == DDHAL_DRIVER_HANDLED);
    EXPECT_DP2(dp2, D3D_OK, 0);
    CHECK(hook_calls == 1);
    CHECK(pixel(rt, 32, 32) == 0xFF00FF00u); /* the clear after it ran */
    CHECK_HR(softhal_set_parse_unknown_command(drv, NULL), D3D_OK);

    /* ---- malformed: a draw reading beyond dwVertexLength ---- */
    w.at = 0;
    cmd(&w, D3DDP2OP_TRIANGLESTRIP, 200);
    {
        D3DHAL_DP2TRIANGLESTRIP ts = {0};
        put(&w, &ts, sizeof ts);
    }
    upload(cb, 0, bytes, w.at);
    dp2.dwCommandOffset = 0;
    dp2.dwCommandLength = w.at;
    dp2.dwVertexSize = sizeof(TLVERTEX);
    CHECK(D3dDrawPrimitives2(&dp2) == DDHAL_DRIVER_HANDLED);
    EXPECT_DP2(dp2, D3DERR_COMMAND_UNPARSED, 0);
    CHECK(pixel(rt, 32, 32) == 0xFF00FF00u);

    /* ---- call-level errors ---- */
    CHECK(D3dDrawPrimitives2(NULL) == DDHAL_DRIVER_NOTHANDLED);
    {
        D3DHAL_DRAWPRIMITIVES2DATA bad = dp2;
        int not_a_surface = 0;
        bad.dwhContext = 0x12345;
        CHECK(D3dDrawPrimitives2(&bad) == DDHAL_DRIVER_HANDLED);
        CHECK_HR(bad.ddrval, D3DHAL_CONTEXT_BAD);
        bad = dp2;
        bad.lpDDCommands = (LPDDRAWI_DDRAWSURFACE_LCL)&not_a_surface; /* forged: never dereferenced */
        CHECK(D3dDrawPrimitives2(&bad) == DDHAL_DRIVER_HANDLED);
        CHECK_HR(bad.ddrval, DDERR_INVALIDOBJECT);
        bad = dp2;
        bad.lpDDCommands = rt; /* not a command buffer */
        CHECK(D3dDrawPrimitives2(&bad) == DDHAL_DRIVER_HANDLED);
        CHECK_HR(bad.ddrval, DDERR_INVALIDOBJECT);
        bad = dp2;
        bad.dwCommandLength = 1u << 20; /* beyond the command surface */
        CHECK(D3dDrawPrimitives2(&bad) == DDHAL_DRIVER_HANDLED);
        CHECK_HR(bad.ddrval, DDERR_INVALIDPARAMS);
        bad = dp2;
        bad.dwFlags = D3DHALDP2_USERMEMVERTICES | D3DHALDP2_EXECUTEBUFFER;
        bad.lpdwRStates = (LPDWORD)((BYTE *)rstates + 1); /* misaligned */
        CHECK(D3dDrawPrimitives2(&bad) == DDHAL_DRIVER_HANDLED);
        CHECK_HR(bad.ddrval, DDERR_INVALIDPARAMS);
        bad = dp2;
        bad.lpVertices = NULL; /* USERMEMVERTICES without vertices */
        CHECK(D3dDrawPrimitives2(&bad) == DDHAL_DRIVER_HANDLED);
        CHECK_HR(bad.ddrval, DDERR_INVALIDPARAMS);
    }

    /* ---- flip: DP2 on the flipping target is refused ---- */
    CHECK_HR(softhal_flip(rt), D3D_OK);
    dp2.dwVertexSize = sizeof(TLVERTEX);
    CHECK(D3dDrawPrimitives2(&dp2) == DDHAL_DRIVER_HANDLED);
    CHECK_HR(dp2.ddrval, DDERR_WASSTILLDRAWING);
    CHECK_HR(softhal_complete_flips(drv), D3D_OK);

    /* ---- Clear2 with one rect ---- */
    {
        D3DRECT r = {0, 0, 4, 4};
        D3DHAL_CLEAR2DATA c2;
        memset(&c2, 0, sizeof c2);
        c2.dwhContext = ccd.dwhContext;
        c2.dwFlags = D3DCLEAR_TARGET;
        c2.dwFillColor = 0xFF0000FFu;
        c2.lpRects = &r;
        c2.dwNumRects = 1;
        CHECK(D3dClear2(&c2) == DDHAL_DRIVER_HANDLED);
        CHECK_HR(c2.ddrval, D3D_OK);
        CHECK(pixel(rt, 1, 1) == 0xFF0000FFu);
        CHECK(pixel(rt, 5, 5) == 0xFF00FF00u); /* the green clear above */
        c2.lpRects = NULL; /* rects promised, none given */
        CHECK(D3dClear2(&c2) == DDHAL_DRIVER_HANDLED);
        CHECK_HR(c2.ddrval, DDERR_INVALIDPARAMS);
    }

    /* ---- ValidateTextureStageState: the default MODULATE cascade ---- */
    {
        D3DHAL_VALIDATETEXTURESTAGESTATEDATA v;
        memset(&v, 0, sizeof v);
        v.dwhContext = ccd.dwhContext;
        CHECK(D3dValidateTextureStageState(&v) == DDHAL_DRIVER_HANDLED);
        CHECK(v.ddrval == D3D_OK || v.ddrval == D3DERR_UNSUPPORTEDCOLOROPERATION);
    }

    /* ---- present ---- */
    {
        BYTE *rgba = (BYTE *)malloc(W * H * 4);
        CHECK_HR(softhal_present(rt, rgba, W * 4, W * H * 4), D3D_OK);
        /* pixel (32, 32): green (R, G, B, A) */
        CHECK(rgba[(32 * W + 32) * 4 + 0] == 0x00 && rgba[(32 * W + 32) * 4 + 1] == 0xFF &&
              rgba[(32 * W + 32) * 4 + 3] == 0xFF);
        CHECK_HR(softhal_present(rt, rgba, W * 4, W * H * 4 - 1), E_INVALIDARG); /* too small */
        free(rgba);
    }

    /* ---- caps ---- */
    {
        SOFTHAL_CAPS caps;
        memset(&caps, 0, sizeof caps);
        CHECK_HR(softhal_get_caps(drv, &caps), E_INVALIDARG); /* dwSize not set */
        caps.dwSize = sizeof caps;
        CHECK_HR(softhal_get_caps(drv, &caps), D3D_OK);
        CHECK(caps.NumSimultaneousRTs == 1);
        CHECK(caps.MaxTextureWidth > 0);
    }

    /* ---- not implemented yet, documented ---- */
    CHECK_HR(softhal_capture_start(drv, "frame.cap"), E_NOTIMPL);
    CHECK_HR(softhal_capture_stop(drv), E_NOTIMPL);
    {
        static D3DDDICB_RENDER render; /* zeroed */
        CHECK_HR(softhal_render_cb(drv, &render), E_NOTIMPL);
        CHECK_HR(softhal_render_cb(NULL, &render), E_INVALIDARG);
        CHECK_HR(softhal_render_cb(drv, NULL), E_INVALIDARG);
        render.Flags.Reserved = 1;
        CHECK_HR(softhal_render_cb(drv, &render), E_INVALIDARG);
    }

    /* ---- argument validation ---- */
    CHECK_HR(softhal_surface_lock(rt, 0, NULL), E_INVALIDARG);
    CHECK_HR(softhal_surface_lock(NULL, 0, (SOFTHAL_LOCKED_SURFACE *)bytes), E_INVALIDARG);
    CHECK_HR(softhal_surface_unlock(rt), D3DERR_INVALIDCALL); /* not locked */
    {
        SOFTHAL_LOCKED_SURFACE l1, l2;
        CHECK_HR(softhal_surface_lock(rt, 0, &l1), D3D_OK);
        CHECK_HR(softhal_surface_lock(rt, 0, &l2), DDERR_CANTLOCKSURFACE);
        CHECK_HR(softhal_surface_unlock(rt), D3D_OK);
    }
    {
        SOFTHAL_SURFACE_DESC d;
        softhal_surface *s = (softhal_surface *)bytes;
        memset(&d, 0, sizeof d);
        d.dwSize = sizeof d;
        d.dwKind = SOFTHAL_SURFACE_RENDERTARGET;
        d.dwFormat = 12345; /* not a format */
        d.dwWidth = d.dwHeight = 8;
        CHECK_HR(softhal_surface_create(drv, &d, &s), DDERR_INVALIDPIXELFORMAT);
        CHECK(s == NULL);
        CHECK_HR(softhal_surface_get_desc(rt, &d), D3D_OK);
        CHECK(d.dwWidth == W && d.dwHeight == H && d.dwFormat == D3DFMT_A8R8G8B8 && d.dwHandle != 0);
    }

    /* ---- teardown ---- */
    {
        D3DHAL_CONTEXTDESTROYDATA cdd;
        memset(&cdd, 0, sizeof cdd);
        cdd.dwhContext = ccd.dwhContext;
        CHECK(D3dContextDestroy(&cdd) == DDHAL_DRIVER_HANDLED);
        CHECK_HR(cdd.ddrval, D3D_OK);
        CHECK(D3dContextDestroy(&cdd) == DDHAL_DRIVER_HANDLED);
        CHECK_HR(cdd.ddrval, D3DHAL_CONTEXT_BAD); /* twice */
    }
    CHECK_HR(softhal_surface_destroy(cb), D3D_OK);
    CHECK_HR(softhal_surface_destroy(cb), DDERR_INVALIDOBJECT); /* twice */
    CHECK_HR(softhal_driver_destroy(drv), D3D_OK);               /* takes rt and z with it */
    CHECK_HR(softhal_surface_destroy(rt), DDERR_INVALIDOBJECT);
    CHECK_HR(softhal_driver_destroy(drv), DDERR_INVALIDOBJECT);
    (void)z;

    if (failures) {
        fprintf(stderr, "smoke: %d check(s) failed\n", failures);
        return 1;
    }
    printf("smoke: all checks passed\n");
    return 0;
}
