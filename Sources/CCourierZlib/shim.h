// CCourierZlib: the zlib header CourierCompression needs, plus `static inline` functions for the
// initialisers that exist only as macros (Swift cannot call a function-like macro). They pass
// ZLIB_VERSION and sizeof(z_stream) as the macros do, so zlib checks the header and library agree.
//
// ZLIB_CONST makes `next_in` a pointer to const: zlib never writes the input.
#ifndef COURIER_ZLIB_SHIM_H
#define COURIER_ZLIB_SHIM_H

#define ZLIB_CONST
#include <zlib.h>

/// inflateInit2: windowBits 8…15 zlib (RFC 1950), -8…-15 raw (RFC 1951), 16+ gzip (RFC 1952).
static inline int courier_inflateInit2(z_stream *stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

/// deflateInit2 with the same windowBits convention as courier_inflateInit2.
static inline int courier_deflateInit2(z_stream *stream, int level, int windowBits, int memLevel, int strategy) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, memLevel, strategy);
}

#endif
