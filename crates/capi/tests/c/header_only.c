/* Includes softhal.h alone (also compiled as C++ and with -pedantic) and
 * makes one round trip through the library. */
#include <stdio.h>
#include "softhal.h"

int main(void) {
    softhal_driver *d = NULL;
    DWORD (SOFTHAL_DDI *dp2)(LPD3DHAL_DRAWPRIMITIVES2DATA) = D3dDrawPrimitives2;
    if (softhal_driver_create(0, &d) != D3D_OK || d == NULL) return 1;
    if (softhal_driver_destroy(d) != D3D_OK) return 1;
    printf("softhal 0x%08X %d\n", (unsigned)softhal_version(), dp2 != NULL);
    return 0;
}
