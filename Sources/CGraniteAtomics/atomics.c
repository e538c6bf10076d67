// Every function of this module is `static inline` in include/CGraniteAtomics.h; a C target needs a source file.
#include "CGraniteAtomics.h"
