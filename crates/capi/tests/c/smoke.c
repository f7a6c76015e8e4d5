/* smoke.c: libsofthal from C, as an emulator would use it.
 *
 * Creates a driver, a render target, a depth buffer and a context; fills a
 * DP2 command buffer by hand (render states, viewport, clear, a triangle
 * strip of pre-transformed coloured vertices from user memory); calls
 * D3dDrawPrimitives2; locks the render target and checks pixels. Then sends
 * malformed buffers and checks ddrval, dwErrorOffset and that the pixels
 * drawn earlier are intact; exercises the unknown-command hook, Clear2,
 * ValidateTextureStageState, argument validation and teardown.
 *
 * Then acts as the user-mode driver: writes GPU packets by hand (state,
 * targets, a clear, a vertex format, a vertex-buffer binding and a draw)
 * with their allocation and patch-location lists, submits them with
 * softhal_render_cb on a render context and checks the triangle's pixels
 * via lock; submits malformed buffers (a command length that cuts a packet
 * or runs past the buffer, a bad allocation index, a privileged packet)
 * and checks each code and that no pixel changed.
 *
 * Finally records a session on a second driver with softhal_capture_start
 * / _stop into the file named by argv[1] (c_smoke.rs replays it and
 * compares pixels and answers).
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

/* ---- GPU packets, written by hand as a user-mode driver would ---- */

typedef struct {
    DWORD d[128];
    DWORD n;
    D3DDDI_PATCHLOCATIONLIST patch[8];
    DWORD npatch;
} Packets;

static void dw(Packets *p, DWORD v) {
    if (p->n >= sizeof p->d / sizeof p->d[0]) {
        fprintf(stderr, "packet buffer overflow\n");
        exit(2);
    }
    p->d[p->n++] = v;
}

/* A reference DWORD (left 0) and its patch location naming list entry `index`. */
static void ref(Packets *p, DWORD index) {
    D3DDDI_PATCHLOCATIONLIST *pl = &p->patch[p->npatch++];
    memset(pl, 0, sizeof *pl);
    pl->AllocationIndex = index;
    pl->PatchOffset = p->n * 4;
    dw(p, 0);
}

static DWORD fbits(float f) {
    DWORD u;
    memcpy(&u, &f, 4);
    return u;
}

#define GPU_NONE 0xFFFFFFFFu

/* Clears the targets (allocation-list entries 0: colour, 1: depth) to
 * `clear`, then draws `triangles` triangles of TL vertices from the vertex
 * buffer (entry 2). */
static void draw_packets(Packets *p, DWORD clear, DWORD triangles) {
    int i;
    memset(p, 0, sizeof *p);
    dw(p, SOFTHAL_GPU_HEADER(SOFTHAL_GPU_SET_REGS, 0, 5));
    dw(p, SOFTHAL_REG_RS(D3DRS_CULLMODE));
    dw(p, 1); /* D3DCULL_NONE */
    dw(p, SOFTHAL_REG_RS(D3DRS_ZENABLE));
    dw(p, 1); /* D3DZB_TRUE */
    dw(p, SOFTHAL_GPU_HEADER(SOFTHAL_GPU_BIND_TARGETS, SOFTHAL_GPU_FLAG_DEPTH, 3));
    ref(p, 0);
    ref(p, 1);
    dw(p, SOFTHAL_GPU_HEADER(SOFTHAL_GPU_CLEAR, 0, 6));
    dw(p, D3DCLEAR_TARGET | D3DCLEAR_ZBUFFER);
    dw(p, clear);
    dw(p, fbits(1.0f));
    dw(p, 0); /* stencil */
    dw(p, 0); /* no rects: the whole targets */
    dw(p, SOFTHAL_GPU_HEADER(SOFTHAL_GPU_VERTEX_FORMAT, 0, 18));
    dw(p, sizeof(TLVERTEX)); /* stride */
    dw(p, 1);                /* XYZRHW */
    dw(p, 0);                /* position offset */
    dw(p, GPU_NONE);         /* blend weights */
    dw(p, 0);
    dw(p, GPU_NONE); /* normal */
    dw(p, GPU_NONE); /* point size */
    dw(p, 16);       /* diffuse */
    dw(p, GPU_NONE); /* specular */
    for (i = 0; i < 8; i++) dw(p, GPU_NONE); /* texture sets */
    dw(p, SOFTHAL_GPU_HEADER(SOFTHAL_GPU_SET_VERTICES, 0, 4));
    ref(p, 2);
    dw(p, 0);                        /* byte offset */
    dw(p, 3 * sizeof(TLVERTEX));     /* byte size */
    dw(p, SOFTHAL_GPU_HEADER(SOFTHAL_GPU_DRAW, 0, 5));
    dw(p, D3DPT_TRIANGLELIST);
    dw(p, 0);
    dw(p, triangles);
    dw(p, 0);
}

/* A render-callback call for `p` with the allocation list `al` (3 entries):
 * as a user-mode driver does, the packets and lists are written into the
 * buffers softhal handed out for `ctx` (NULL: the default context). */
static void render_data(softhal_driver *d, D3DDDICB_RENDER *r, Packets *p, D3DDDI_ALLOCATIONLIST *al, HANDLE ctx) {
    memset(r, 0, sizeof *r);
    CHECK_HR(softhal_render_context_get_buffers(d, ctx, r), D3D_OK);
    if (!r->pNewCommandBuffer || !r->pNewAllocationList || !r->pNewPatchLocationList ||
        p->n * 4 > r->NewCommandBufferSize || r->NewAllocationListSize < 3 ||
        p->npatch > r->NewPatchLocationListSize) {
        fprintf(stderr, "smoke.c: the buffers handed out cannot hold the submission\n");
        failures++;
        return;
    }
    memcpy(r->pNewCommandBuffer, p->d, p->n * 4);
    memcpy(r->pNewAllocationList, al, 3 * sizeof *al);
    memcpy(r->pNewPatchLocationList, p->patch, p->npatch * sizeof *p->patch);
    r->CommandLength = p->n * 4;
    r->NumAllocations = 3;
    r->NumPatchLocations = p->npatch;
    r->hContext = ctx;
}

/* The render target's bytes (level 0) into `out` (W * H * 4 bytes). */
static void snapshot(softhal_surface *rt, BYTE *out) {
    SOFTHAL_LOCKED_SURFACE l;
    int y;
    CHECK_HR(softhal_surface_lock(rt, SOFTHAL_LOCK_READONLY, &l), D3D_OK);
    for (y = 0; y < H && l.pBits; y++)
        memcpy(out + y * W * 4, (BYTE *)l.pBits + y * l.dwPitch, W * 4);
    CHECK_HR(softhal_surface_unlock(rt), D3D_OK);
}

/* Submits `r` with a resize request, which must fail with `want`, and checks
 * that the buffers and sizes in force came back (the request not granted)
 * and that no pixel of `rt` changed. */
static void expect_refused(softhal_driver *d, softhal_surface *rt, D3DDDICB_RENDER *r, HRESULT want, int line) {
    static BYTE before[W * H * 4], after[W * H * 4];
    HRESULT got;
    snapshot(rt, before);
    void *cmd = r->pNewCommandBuffer;
    UINT size = r->NewCommandBufferSize;
    r->Flags.ResizeCommandBuffer = 1; /* a request a refusal must not grant */
    r->NewCommandBufferSize = size + 4096;
    got = softhal_render_cb(d, r);
    if (got != want) {
        fprintf(stderr, "smoke.c:%d: softhal_render_cb = 0x%08X, want 0x%08X\n", line, (unsigned)got,
                (unsigned)want);
        failures++;
    }
    if (r->NewCommandBufferSize != size || r->pNewCommandBuffer != cmd || r->NewAllocationListSize == 0 ||
        r->NewPatchLocationListSize == 0) {
        fprintf(stderr, "smoke.c:%d: the buffers in force were not returned\n", line);
        failures++;
    }
    snapshot(rt, after);
    if (memcmp(before, after, sizeof before) != 0) {
        fprintf(stderr, "smoke.c:%d: a refused submission changed pixels\n", line);
        failures++;
    }
}
#define EXPECT_REFUSED(d, rt, r, want) expect_refused((d), (rt), &(r), (HRESULT)(want), __LINE__)

static void render_callback(softhal_driver *drv, softhal_surface *rt, softhal_surface *z) {
    TLVERTEX tri[3] = {
        {4.0f, 4.0f, 0.5f, 1.0f, 0xFF0000FFu},
        {60.0f, 4.0f, 0.5f, 1.0f, 0xFF0000FFu},
        {4.0f, 60.0f, 0.5f, 1.0f, 0xFF0000FFu},
    };
    softhal_surface *vb = make_surface(drv, SOFTHAL_SURFACE_VERTEXBUFFER, 0, sizeof tri, 1);
    softhal_surface *tex = make_surface(drv, SOFTHAL_SURFACE_TEXTURE, D3DFMT_A8R8G8B8, 8, 8);
    SOFTHAL_LOCKED_SURFACE l;
    D3DDDI_ALLOCATIONLIST al[3];
    DWORD a_rt = 0, a_z = 0, a_vb = 0, a_tex = 0;
    HANDLE ctx = NULL, copy = NULL, junk = NULL;
    static Packets p, bad;
    static D3DDDICB_RENDER r;

    CHECK_HR(softhal_surface_lock(vb, 0, &l), D3D_OK);
    if (l.pBits && l.dwSize >= sizeof tri) memcpy(l.pBits, tri, sizeof tri);
    CHECK_HR(softhal_surface_unlock(vb), D3D_OK);

    CHECK_HR(softhal_render_context_create(drv, SOFTHAL_ENGINE_3D, &ctx), D3D_OK);
    CHECK(ctx != NULL);
    CHECK_HR(softhal_render_context_create(drv, SOFTHAL_ENGINE_COPY, &copy), D3D_OK);
    CHECK_HR(softhal_render_context_create(drv, 7, &junk), E_INVALIDARG);
    CHECK(junk == NULL);
    CHECK_HR(softhal_surface_get_allocation(rt, &a_rt), D3D_OK);
    CHECK_HR(softhal_surface_get_allocation(z, &a_z), D3D_OK);
    CHECK_HR(softhal_surface_get_allocation(vb, &a_vb), D3D_OK);
    CHECK_HR(softhal_surface_get_allocation(tex, &a_tex), D3D_OK); /* textures are sampled by the GPU */
    CHECK(a_rt != 0 && a_z != 0 && a_vb != 0 && a_tex != 0 && a_rt != a_vb && a_tex != a_vb);
    memset(al, 0, sizeof al);
    al[0].hAllocation = a_rt;
    al[0].WriteOperation = 1;
    al[1].hAllocation = a_z;
    al[1].WriteOperation = 1;
    al[2].hAllocation = a_vb;

    /* The triangle: blue over a dark clear. */
    draw_packets(&p, 0xFF102030u, 1);
    render_data(drv, &r, &p, al, ctx);
    CHECK_HR(softhal_render_cb(drv, &r), S_OK);
    CHECK(r.NewCommandBufferSize >= 4096 && r.NewAllocationListSize >= 3 && r.NewPatchLocationListSize >= 3);
    CHECK(r.pNewCommandBuffer != NULL && r.pNewCommandBuffer != (void *)p.d); /* softhal's buffers */
    CHECK(pixel(rt, 10, 10) == 0xFF0000FFu);
    CHECK(pixel(rt, 5, 50) == 0xFF0000FFu);
    CHECK(pixel(rt, 50, 50) == 0xFF102030u);
    CHECK(pixel(rt, 62, 2) == 0xFF102030u);

    /* Refused, each would clear to red: nothing may change. */
    draw_packets(&bad, 0xFFFF0000u, 1);
    render_data(drv, &r, &bad, al, ctx);
    r.CommandLength -= 4; /* cuts the DRAW packet */
    EXPECT_REFUSED(drv, rt, r, D3DDDIERR_INVALIDUSERBUFFER);
    render_data(drv, &r, &bad, al, ctx);
    r.CommandLength -= 2; /* not whole DWORDs */
    EXPECT_REFUSED(drv, rt, r, D3DDDIERR_INVALIDUSERBUFFER);
    render_data(drv, &r, &bad, al, ctx);
    r.CommandLength = r.NewCommandBufferSize + 4; /* past the buffer handed out */
    EXPECT_REFUSED(drv, rt, r, D3DDDIERR_INVALIDUSERBUFFER);
    render_data(drv, &r, &bad, al, ctx);
    r.CommandLength = 0x7FFFFFF0u; /* past the kernel's limit */
    EXPECT_REFUSED(drv, rt, r, E_OUTOFMEMORY);
    bad.patch[2].AllocationIndex = 7; /* the list has 3 entries */
    render_data(drv, &r, &bad, al, ctx);
    EXPECT_REFUSED(drv, rt, r, D3DDDIERR_INVALIDHANDLE);
    draw_packets(&bad, 0xFFFF0000u, 1);
    dw(&bad, SOFTHAL_GPU_HEADER(SOFTHAL_GPU_FENCE_SIGNAL, 0, 4)); /* kernel only */
    dw(&bad, 1);
    dw(&bad, 1000);
    dw(&bad, 0);
    render_data(drv, &r, &bad, al, ctx);
    EXPECT_REFUSED(drv, rt, r, D3DDDIERR_PRIVILEGEDINSTRUCTION);
    draw_packets(&bad, 0xFFFF0000u, 2); /* 2 triangles from a 3-vertex range */
    render_data(drv, &r, &bad, al, ctx);
    EXPECT_REFUSED(drv, rt, r, D3DDDIERR_INVALIDINSTRUCTION);
    draw_packets(&bad, 0xFFFF0000u, 1);
    render_data(drv, &r, &bad, al, copy); /* a draw on the copy engine */
    EXPECT_REFUSED(drv, rt, r, D3DDDIERR_INVALIDINSTRUCTION);
    render_data(drv, &r, &bad, al, ctx);
    r.BroadcastContextCount = 1; /* refused at the boundary: the same rule */
    EXPECT_REFUSED(drv, rt, r, E_INVALIDARG);
    CHECK_HR(softhal_render_context_get_buffers(drv, (HANDLE)(uintptr_t)0x5555, &r), E_INVALIDARG);

    /* hContext NULL: the device's default context (a darker clear). */
    draw_packets(&p, 0xFF081018u, 1);
    render_data(drv, &r, &p, al, NULL);
    CHECK_HR(softhal_render_cb(drv, &r), S_OK);
    CHECK(pixel(rt, 10, 10) == 0xFF0000FFu);
    CHECK(pixel(rt, 50, 50) == 0xFF081018u);

    /* A granted resize hands out new buffers of exactly the sizes reported:
     * the host may write every byte of them (ASan checks the bounds). */
    draw_packets(&p, 0xFF102030u, 1);
    render_data(drv, &r, &p, al, ctx);
    r.Flags.ResizeCommandBuffer = 1;
    r.NewCommandBufferSize = 256 * 1024;
    r.Flags.ResizeAllocationList = 1;
    r.NewAllocationListSize = 16;
    r.Flags.ResizePatchLocationList = 1;
    r.NewPatchLocationListSize = 32;
    CHECK_HR(softhal_render_cb(drv, &r), S_OK);
    CHECK(r.NewCommandBufferSize == 256 * 1024 && r.NewAllocationListSize == 16 && r.NewPatchLocationListSize == 32);
    if (r.pNewCommandBuffer && r.pNewAllocationList && r.pNewPatchLocationList) {
        memset(r.pNewCommandBuffer, 0xCD, r.NewCommandBufferSize);
        memset(r.pNewAllocationList, 0, r.NewAllocationListSize * sizeof(D3DDDI_ALLOCATIONLIST));
        memset(r.pNewPatchLocationList, 0, r.NewPatchLocationListSize * sizeof(D3DDDI_PATCHLOCATIONLIST));
    }
    CHECK(pixel(rt, 10, 10) == 0xFF0000FFu);
    CHECK(pixel(rt, 50, 50) == 0xFF102030u);

    CHECK_HR(softhal_render_context_destroy(drv, copy), D3D_OK);
    CHECK_HR(softhal_render_context_destroy(drv, copy), E_INVALIDARG); /* twice */
    CHECK_HR(softhal_render_context_destroy(drv, ctx), D3D_OK);
    CHECK_HR(softhal_surface_destroy(vb), D3D_OK);
    CHECK_HR(softhal_surface_destroy(tex), D3D_OK);
}

/* A session recorded into `path`: a surface made before the capture (its
 * contents go into the capture), then surfaces, locks, a context, DP2 with
 * user-memory vertices, Clear2, render-callback submissions (one refused),
 * a flip and presents. */
static void capture_session(const char *path) {
    softhal_driver *d;
    softhal_surface *pre, *rt, *z, *vb, *cb;
    SOFTHAL_LOCKED_SURFACE l;
    D3DDDI_ALLOCATIONLIST al[3];
    DWORD a_rt = 0, a_z = 0, a_vb = 0;
    HANDLE rctx = NULL;
    static Packets p;
    static D3DDDICB_RENDER r;
    static BYTE rgba[W * H * 4];
    BYTE bytes[256];
    Writer w = {bytes, sizeof bytes, 0};
    TLVERTEX tri[3] = {
        {60.0f, 60.0f, 0.25f, 1.0f, 0xFF00FF00u},
        {60.0f, 20.0f, 0.25f, 1.0f, 0xFF00FF00u},
        {20.0f, 60.0f, 0.25f, 1.0f, 0xFF00FF00u},
    };
    TLVERTEX strip[4] = {
        {0.0f, 0.0f, 0.5f, 1.0f, 0xFFFF0000u},
        {32.0f, 0.0f, 0.5f, 1.0f, 0xFFFF0000u},
        {0.0f, 32.0f, 0.5f, 1.0f, 0xFFFF0000u},
        {32.0f, 32.0f, 0.5f, 1.0f, 0xFFFF0000u},
    };
    int i;

    CHECK_HR(softhal_driver_create(1, &d), D3D_OK);
    g_drv = d;
    /* Made before the capture starts: recorded with its contents. */
    pre = make_surface(d, SOFTHAL_SURFACE_RENDERTARGET, D3DFMT_A8R8G8B8, W, H);
    CHECK_HR(softhal_surface_lock(pre, 0, &l), D3D_OK);
    for (i = 0; l.pBits && i < (int)l.dwSize; i++) ((BYTE *)l.pBits)[i] = (BYTE)(i * 7);
    CHECK_HR(softhal_surface_unlock(pre), D3D_OK);
    vb = make_surface(d, SOFTHAL_SURFACE_VERTEXBUFFER, 0, sizeof tri, 1);
    CHECK_HR(softhal_surface_lock(vb, 0, &l), D3D_OK);
    if (l.pBits) memcpy(l.pBits, tri, sizeof tri);
    CHECK_HR(softhal_surface_unlock(vb), D3D_OK);

    CHECK_HR(softhal_capture_stop(d), D3DERR_INVALIDCALL); /* not capturing */
    CHECK_HR(softhal_capture_start(d, NULL), E_INVALIDARG);
    CHECK_HR(softhal_capture_start(d, path), D3D_OK);
    CHECK_HR(softhal_capture_start(d, path), D3DERR_INVALIDCALL); /* already */

    rt = make_surface(d, SOFTHAL_SURFACE_RENDERTARGET, D3DFMT_A8R8G8B8, W, H);
    z = make_surface(d, SOFTHAL_SURFACE_DEPTHSTENCIL, D3DFMT_D24S8, W, H);
    cb = make_surface(d, SOFTHAL_SURFACE_COMMANDBUFFER, 0, 1024, 1);
    {
        D3DHAL_CONTEXTCREATEDATA ccd;
        D3DHAL_DRAWPRIMITIVES2DATA dp2;
        D3DHAL_CONTEXTDESTROYDATA cdd;
        D3DHAL_CLEAR2DATA c2;
        D3DRECT rect = {40, 0, 64, 8};

        memset(&ccd, 0, sizeof ccd);
        ccd.lpDDLcl = d;
        ccd.lpDDSLcl = rt;
        ccd.lpDDSZLcl = z;
        CHECK(D3dContextCreate(&ccd) == DDHAL_DRIVER_HANDLED);
        CHECK_HR(ccd.ddrval, D3D_OK);

        cmd(&w, D3DDP2OP_RENDERSTATE, 1);
        render_state(&w, D3DRS_CULLMODE_, D3DCULL_NONE_);
        cmd(&w, D3DDP2OP_CLEAR, 0);
        {
            D3DHAL_DP2CLEAR clr;
            memset(&clr, 0, sizeof clr);
            clr.dwFlags = D3DCLEAR_TARGET | D3DCLEAR_ZBUFFER;
            clr.dwFillColor = 0xFF404040u;
            clr.dvFillDepth = 1.0f;
            put(&w, &clr, sizeof clr);
        }
        cmd(&w, D3DDP2OP_TRIANGLESTRIP, 2);
        {
            D3DHAL_DP2TRIANGLESTRIP ts = {0};
            put(&w, &ts, sizeof ts);
        }
        upload(cb, 0, bytes, w.at);
        memset(&dp2, 0, sizeof dp2);
        dp2.dwhContext = ccd.dwhContext;
        dp2.dwFlags = D3DHALDP2_USERMEMVERTICES;
        dp2.dwVertexType = FVF_TL;
        dp2.lpDDCommands = cb;
        dp2.dwCommandLength = w.at;
        dp2.lpVertices = strip;
        dp2.dwVertexLength = 4;
        dp2.dwVertexSize = sizeof(TLVERTEX);
        CHECK(D3dDrawPrimitives2(&dp2) == DDHAL_DRIVER_HANDLED);
        EXPECT_DP2(dp2, D3D_OK, 0);
        CHECK(pixel(rt, 8, 8) == 0xFFFF0000u);

        memset(&c2, 0, sizeof c2);
        c2.dwhContext = ccd.dwhContext;
        c2.dwFlags = D3DCLEAR_TARGET;
        c2.dwFillColor = 0xFF00FFFFu;
        c2.lpRects = &rect;
        c2.dwNumRects = 1;
        CHECK(D3dClear2(&c2) == DDHAL_DRIVER_HANDLED);
        CHECK_HR(c2.ddrval, D3D_OK);

        /* The host as the UMD: a green triangle over the DP2 work (depth
         * 0.25 passes the strip's 0.5 after the clear to 1.0). */
        CHECK_HR(softhal_render_context_create(d, SOFTHAL_ENGINE_3D, &rctx), D3D_OK);
        CHECK_HR(softhal_surface_get_allocation(rt, &a_rt), D3D_OK);
        CHECK_HR(softhal_surface_get_allocation(z, &a_z), D3D_OK);
        CHECK_HR(softhal_surface_get_allocation(vb, &a_vb), D3D_OK);
        memset(al, 0, sizeof al);
        al[0].hAllocation = a_rt;
        al[0].WriteOperation = 1;
        al[1].hAllocation = a_z;
        al[1].WriteOperation = 1;
        al[2].hAllocation = a_vb;
        draw_packets(&p, 0xFF404040u, 1);
        /* No clear this time: turn the CLEAR packet (6 DWORDs at 8) into a NOP. */
        p.d[8] = SOFTHAL_GPU_HEADER(SOFTHAL_GPU_NOP, 0, 6);
        render_data(d, &r, &p, al, rctx);
        CHECK_HR(softhal_render_cb(d, &r), S_OK);
        CHECK(pixel(rt, 55, 55) == 0xFF00FF00u);
        CHECK(pixel(rt, 8, 8) == 0xFFFF0000u);
        p.patch[0].AllocationIndex = 9;
        render_data(d, &r, &p, al, rctx);
        CHECK_HR(softhal_render_cb(d, &r), D3DDDIERR_INVALIDHANDLE);

        /* Render-to-texture: a 2×2 texture with two levels created with
         * render-target usage; level 1 (1×1), named by its attached
         * surface, is the target of a DP2 CLEAR (SETRENDERTARGET2 slot
         * 0), then the back buffer is the target again. Level 1 holds
         * the clear colour, level 0 is untouched; the capture declares
         * the texture with both uses and records the attached surface. */
        {
            softhal_surface *rtt = NULL;
            SOFTHAL_SURFACE_DESC sd, rd;
            BYTE b2[128];
            Writer w2 = {b2, sizeof b2, 0};
            D3DHAL_DP2SETRENDERTARGET2 srt;
            D3DHAL_DP2CLEAR clr;
            DWORD texel = 0, level1 = 0, h = 0;

            memset(&sd, 0, sizeof sd);
            sd.dwSize = sizeof sd;
            sd.dwKind = SOFTHAL_SURFACE_TEXTURE | SOFTHAL_SURFACE_USAGE_RENDERTARGET;
            sd.dwFormat = D3DFMT_A8R8G8B8;
            sd.dwWidth = 2;
            sd.dwHeight = 2;
            sd.dwDepth = 1;
            sd.dwMipLevels = 2;
            CHECK_HR(softhal_surface_create(d, &sd, &rtt), D3D_OK);
            memset(&sd, 0, sizeof sd);
            memset(&rd, 0, sizeof rd);
            CHECK_HR(softhal_surface_get_desc(rtt, &sd), D3D_OK);
            CHECK(sd.dwKind == (SOFTHAL_SURFACE_TEXTURE | SOFTHAL_SURFACE_USAGE_RENDERTARGET));
            CHECK_HR(softhal_surface_get_desc(rt, &rd), D3D_OK);
            CHECK_HR(softhal_surface_get_attached(rtt, 0, 0, &h), D3D_OK);
            CHECK(h == sd.dwHandle);
            CHECK_HR(softhal_surface_get_attached(rtt, 0, 1, &level1), D3D_OK);
            CHECK(level1 != 0 && level1 != sd.dwHandle);
            CHECK_HR(softhal_surface_get_attached(rtt, 0, 2, &h), DDERR_INVALIDPARAMS);
            CHECK_HR(softhal_surface_get_attached(rt, 0, 0, &h), DDERR_INVALIDOBJECT);
            CHECK_HR(softhal_surface_get_attached(rtt, 0, 1, NULL), E_INVALIDARG);
            cmd(&w2, D3DDP2OP_SETRENDERTARGET2, 1);
            srt.RTIndex = 0;
            srt.hRenderTarget = level1;
            put(&w2, &srt, sizeof srt);
            cmd(&w2, D3DDP2OP_CLEAR, 0);
            memset(&clr, 0, sizeof clr);
            clr.dwFlags = D3DCLEAR_TARGET;
            clr.dwFillColor = 0xFF0000FFu;
            put(&w2, &clr, sizeof clr);
            cmd(&w2, D3DDP2OP_SETRENDERTARGET2, 1);
            srt.hRenderTarget = rd.dwHandle;
            put(&w2, &srt, sizeof srt);
            upload(cb, 0, b2, w2.at);
            memset(&dp2, 0, sizeof dp2);
            dp2.dwhContext = ccd.dwhContext;
            dp2.lpDDCommands = cb;
            dp2.dwCommandLength = w2.at;
            CHECK(D3dDrawPrimitives2(&dp2) == DDHAL_DRIVER_HANDLED);
            EXPECT_DP2(dp2, D3D_OK, 0);
            CHECK_HR(softhal_surface_lock_level(rtt, 0, 1, SOFTHAL_LOCK_READONLY, &l), D3D_OK);
            if (l.pBits && l.dwSize >= 4) memcpy(&texel, l.pBits, 4);
            CHECK_HR(softhal_surface_unlock(rtt), D3D_OK);
            CHECK(texel == 0xFF0000FFu);
            texel = 0xDEADBEEFu;
            CHECK_HR(softhal_surface_lock(rtt, SOFTHAL_LOCK_READONLY, &l), D3D_OK);
            if (l.pBits && l.dwSize >= 4) memcpy(&texel, l.pBits, 4);
            CHECK_HR(softhal_surface_unlock(rtt), D3D_OK);
            CHECK(texel == 0);
            /* Usage bits on a kind that cannot have them. */
            {
                SOFTHAL_SURFACE_DESC bad = sd;
                softhal_surface *none = NULL;
                bad.dwKind = SOFTHAL_SURFACE_VOLUMETEXTURE | SOFTHAL_SURFACE_USAGE_RENDERTARGET;
                bad.dwDepth = 2;
                CHECK_HR(softhal_surface_create(d, &bad, &none), DDERR_INVALIDPARAMS);
                CHECK(none == NULL);
            }
        }

        CHECK_HR(softhal_flip(rt), D3D_OK);
        CHECK_HR(softhal_complete_flips(d), D3D_OK);
        CHECK_HR(softhal_present(rt, rgba, W * 4, sizeof rgba), D3D_OK);
        CHECK_HR(softhal_present(pre, rgba, W * 4, sizeof rgba), D3D_OK);
        CHECK(rgba[7] == 49); /* the contents written before the capture */

        CHECK_HR(softhal_render_context_destroy(d, rctx), D3D_OK);
        memset(&cdd, 0, sizeof cdd);
        cdd.dwhContext = ccd.dwhContext;
        CHECK(D3dContextDestroy(&cdd) == DDHAL_DRIVER_HANDLED);
        CHECK_HR(cdd.ddrval, D3D_OK);
    }
    CHECK_HR(softhal_surface_destroy(cb), D3D_OK);
    CHECK_HR(softhal_capture_stop(d), D3D_OK);
    CHECK_HR(softhal_capture_stop(d), D3DERR_INVALIDCALL);
    CHECK_HR(softhal_driver_destroy(d), D3D_OK);
}

int main(int argc, char **argv) {
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
    /* Thread counts above the limit are refused; nothing is created. */
    drv = (softhal_driver *)1;
    CHECK_HR(softhal_driver_create(SOFTHAL_MAX_THREADS + 1, &drv), DDERR_INVALIDPARAMS);
    CHECK(drv == NULL);
    CHECK_HR(softhal_driver_create(1, &drv), D3D_OK);
    CHECK(drv != NULL);
    g_drv = drv;
    /* The GPU watchdog: settable (0 = no limit) and cancellable from any
     * thread; with nothing running a cancel has no effect. */
    CHECK_HR(softhal_driver_set_timeout(drv, SOFTHAL_DEFAULT_GPU_TIMEOUT_MS), D3D_OK);
    CHECK_HR(softhal_driver_cancel(drv), D3D_OK);
    CHECK_HR(softhal_driver_cancel(NULL), E_INVALIDARG);
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
    /* dwVertexSize shares storage with ddrval: set it again before a call
       (softhal reads dwVertexLength x dwVertexSize bytes of lpVertices). */
    dp2.dwVertexSize = sizeof(TLVERTEX);
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
        bad.dwVertexSize = 12; /* smaller than the FVF's 20-byte vertex: refused unread */
        CHECK(D3dDrawPrimitives2(&bad) == DDHAL_DRIVER_HANDLED);
        CHECK_HR(bad.ddrval, D3DERR_INVALIDVERTEXFORMAT);
        CHECK(bad.dwErrorOffset == bad.dwCommandOffset);
        {
            char msg[256]; /* the last error is this refusal's, not an earlier call's */
            CHECK_HR(softhal_get_last_error(drv, msg, sizeof msg, NULL), D3D_OK);
            CHECK(strstr(msg, "D3DERR_INVALIDVERTEXFORMAT") != NULL);
        }
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
        CHECK(caps.NumSimultaneousRTs == 4); /* oC0-oC3 */
        CHECK(caps.MaxTextureWidth > 0);
    }

    /* ---- the render callback ---- */
    render_callback(drv, rt, z);
    {
        static D3DDDICB_RENDER render; /* zeroed: the default context, nothing to submit */
        CHECK_HR(softhal_render_cb(drv, &render), S_OK);
        CHECK(render.pNewCommandBuffer != NULL && render.NewCommandBufferSize > 0);
        render.Flags.Reserved = 1;
        CHECK_HR(softhal_render_cb(drv, &render), E_INVALIDARG);
        CHECK(render.pNewCommandBuffer != NULL); /* the buffers in force */
        CHECK_HR(softhal_render_cb(NULL, &render), E_INVALIDARG);
        CHECK(render.pNewCommandBuffer == NULL && render.NewCommandBufferSize == 0); /* no device, no buffers */
        CHECK_HR(softhal_render_cb(drv, NULL), E_INVALIDARG);
    }

    /* ---- capture: refused on a driver that has contexts ---- */
    CHECK_HR(softhal_capture_start(drv, "never-written.shcap"), D3DERR_INVALIDCALL);
    CHECK_HR(softhal_capture_stop(drv), D3DERR_INVALIDCALL);

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

    /* ---- a SWAPCOMMANDBUFFER rename: the description shows the new size ---- */
    {
        D3DHAL_DRAWPRIMITIVES2DATA sw;
        SOFTHAL_SURFACE_DESC d;
        memset(&sw, 0, sizeof sw);
        sw.dwhContext = ccd.dwhContext;
        sw.lpDDCommands = cb;
        sw.dwFlags = D3DHALDP2_SWAPCOMMANDBUFFER | D3DHALDP2_REQCOMMANDBUFSIZE;
        sw.dwReqCommandBufSize = 8192; /* more than the 4096 bytes it has */
        CHECK(D3dDrawPrimitives2(&sw) == DDHAL_DRIVER_HANDLED);
        CHECK_HR(sw.ddrval, D3D_OK);
        CHECK_HR(softhal_surface_get_desc(cb, &d), D3D_OK);
        CHECK(d.dwWidth == 8192);
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

    /* ---- a recorded session (replayed by c_smoke.rs) ---- */
    if (argc > 1) capture_session(argv[1]);

    if (failures) {
        fprintf(stderr, "smoke: %d check(s) failed\n", failures);
        return 1;
    }
    printf("smoke: all checks passed\n");
    return 0;
}
