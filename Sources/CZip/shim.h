#ifndef CZIP_SHIM_H
#define CZIP_SHIM_H
#include <zip.h>
#endif
