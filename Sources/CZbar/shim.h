#ifndef CZBAR_SHIM_H
#define CZBAR_SHIM_H
#include <zbar.h>

/// `zbar_fourcc` is a function-like macro: the format of 8-bit greyscale images, one byte a pixel.
static inline unsigned long shim_zbar_y800(void) { return zbar_fourcc('Y', '8', '0', '0'); }
#endif
