/* A host that already has the DDK's types (here a minimal stand-in for
 * windows.h + d3dhal.h, declaring the same names) defines
 * SOFTHAL_USE_SYSTEM_DDI_TYPES and gets only softhal's own declarations,
 * written against those type names. */
#include <stddef.h>
#include <stdint.h>

/* --- stand-in for the host's system headers --- */
typedef unsigned char BYTE;
typedef unsigned short WORD;
typedef unsigned int DWORD;
typedef int LONG;
typedef int HRESULT;
typedef unsigned long long ULONG_PTR;
typedef void *LPVOID;
typedef void *HANDLE;
typedef DWORD *LPDWORD;
typedef struct _DDRAWI_DDRAWSURFACE_LCL *LPDDRAWI_DDRAWSURFACE_LCL;
typedef struct _D3DHAL_DRAWPRIMITIVES2DATA { ULONG_PTR dwhContext; DWORD dwFlags; } D3DHAL_DRAWPRIMITIVES2DATA, *LPD3DHAL_DRAWPRIMITIVES2DATA;
typedef struct _D3DHAL_CONTEXTCREATEDATA { LPVOID lpDDGbl; } D3DHAL_CONTEXTCREATEDATA, *LPD3DHAL_CONTEXTCREATEDATA;
typedef struct _D3DHAL_CONTEXTDESTROYDATA { ULONG_PTR dwhContext; } D3DHAL_CONTEXTDESTROYDATA, *LPD3DHAL_CONTEXTDESTROYDATA;
typedef struct _D3DHAL_CLEAR2DATA { ULONG_PTR dwhContext; } D3DHAL_CLEAR2DATA, *LPD3DHAL_CLEAR2DATA;
typedef struct _D3DHAL_VALIDATETEXTURESTAGESTATEDATA { ULONG_PTR dwhContext; } D3DHAL_VALIDATETEXTURESTAGESTATEDATA, *LPD3DHAL_VALIDATETEXTURESTAGESTATEDATA;
#define D3DDP2OP_RENDERSTATE 8 /* the host's own definition must not clash */

#define SOFTHAL_USE_SYSTEM_DDI_TYPES
#include "softhal.h"

/* softhal's functions are declared with the host's types. */
DWORD (SOFTHAL_DDI *const dp2)(LPD3DHAL_DRAWPRIMITIVES2DATA) = D3dDrawPrimitives2;
DWORD (SOFTHAL_DDI *const ctx)(LPD3DHAL_CONTEXTCREATEDATA) = D3dContextCreate;
HRESULT (*const lock)(softhal_surface *, DWORD, SOFTHAL_LOCKED_SURFACE *) = softhal_surface_lock;

/* Host code casts softhal objects to the DDK pointer types. */
void fill(D3DHAL_DRAWPRIMITIVES2DATA *d, softhal_surface *cb) {
    (void)cb;
    d->dwFlags = 0;
    (void)(LPDDRAWI_DDRAWSURFACE_LCL)cb;
}
