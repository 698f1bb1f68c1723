/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_scalar.cuh - the element type of the kernels and the arithmetic on
 * it, one definition per BLAS routine, so that every kernel family is one
 * source for all six routines.
 *
 * The routine is the compile-time define SYMV_ROUTINE, a bare token (NVRTC
 * -D or nvcc -D, e.g. -DSYMV_ROUTINE=zhemv); without it the kernels are
 * DSYMV's:
 *
 *   SYMV_ROUTINE  symv_t (the element)        symv_r   bytes  SYMV_COMPLEX  SYMV_HERMITIAN
 *   ssymv         float                       float      4        0             0
 *   dsymv         double                      double     8        0             0
 *   csymv         {float re, im}, 8-aligned   float      8        1             0
 *   zsymv         {double re, im}, 16-aligned double    16        1             0
 *   chemv         {float re, im}, 8-aligned   float      8        1             1
 *   zhemv         {double re, im}, 16-aligned double    16        1             1
 *
 * The complex element is byte-compatible with cuComplex / cuDoubleComplex
 * (float2 / double2): real part first, aligned to its size, so the host
 * passes those arrays and scalars as they are. It is defined here, not taken
 * from a header: NVRTC compiles the kernels with no headers at all.
 *
 * Symmetric vs Hermitian: the kernels read only the stored (logical lower,
 * symv_common.cuh) triangle. A stored a(i,j), i > j, enters row i's sum as
 * it is and column j's sum (the mirrored element A(j,i)) as symv_mirror(a):
 * a itself for SYMV, conj(a) for HEMV. The diagonal a(i,i) is counted once,
 * in the row sum, as symv_diag(a): for HEMV its imaginary part is taken as
 * zero whatever is stored (BLAS: "assumed to be zero"). With uplo = upper
 * the logical matrix is the stored one reversed (P A P), Hermitian too, so
 * the same rule holds with no special case.
 *
 * For real routines every helper is the plain expression (c + a * b,
 * contracted to one fma; __ldg, atomicAdd, ...), so the real kernels'
 * code is that of the same sources written on double or float.
 *
 * Helpers (a, b, c, beta: elements, symv_t; p: a symv_t pointer; r: symv_r):
 *   symv_zero()  symv_add(a,b)  symv_mul(a,b)  symv_fma(a,b,c) = a*b + c
 *   symv_fma_rn(a,b,c) = a*b + c (real: explicit fma(), not a contraction)
 *   symv_mirror(a)  symv_diag(a)
 *   symv_is_zero(a)  symv_nonzero(a)  symv_is_one(a)  symv_not_one(a) -> bool
 *   symv_ldg(p)  symv_ldcg(p)  symv_stcg(p, a)      (global memory)
 *   symv_shfl_xor(a, mask)  symv_shfl_down(a, delta)  symv_shfl(a, lane)
 *   symv_atomic_add(p, a)   symv_scale_elem(p, beta)
 *   symv_rfma(r, r, r) (real parts); complex only: symv_make(re, im)
 * all __device__ __forceinline__ functions, except that for real routines
 * the four tests are function-like macros (see there).
 */
#ifndef SYMV_SCALAR_CUH
#define SYMV_SCALAR_CUH

#define SYMV_CAT(a, b) a##b
#define SYMV_XCAT(a, b) SYMV_CAT(a, b)

/* routine token -> number (0, i.e. "not one of these", for anything else) */
#define SYMV_ROUTINE_ID_ssymv 1
#define SYMV_ROUTINE_ID_dsymv 2
#define SYMV_ROUTINE_ID_csymv 3
#define SYMV_ROUTINE_ID_zsymv 4
#define SYMV_ROUTINE_ID_chemv 5
#define SYMV_ROUTINE_ID_zhemv 6

#ifndef SYMV_ROUTINE
#define SYMV_ROUTINE dsymv
#endif
#define SYMV_ROUTINE_ID SYMV_XCAT(SYMV_ROUTINE_ID_, SYMV_ROUTINE)

#if SYMV_ROUTINE_ID < 1 || SYMV_ROUTINE_ID > 6
#error "SYMV_ROUTINE must be one of ssymv dsymv csymv zsymv chemv zhemv (a bare lower-case token, e.g. -DSYMV_ROUTINE=zhemv)"
#endif

#if SYMV_ROUTINE_ID == 1 || SYMV_ROUTINE_ID == 3 || SYMV_ROUTINE_ID == 5
#define SYMV_SINGLE 1 /* real parts are float */
#else
#define SYMV_SINGLE 0 /* real parts are double */
#endif
#define SYMV_COMPLEX (SYMV_ROUTINE_ID >= 3)
#define SYMV_HERMITIAN (SYMV_ROUTINE_ID >= 5)

#if SYMV_SINGLE
typedef float symv_r;
#define SYMV_PTX_R "f32" /* PTX type of a real part */
#define SYMV_RC "f"      /* asm constraint of a real part */
#else
typedef double symv_r;
#define SYMV_PTX_R "f64"
#define SYMV_RC "d"
#endif

/* fused multiply-add of real parts, one rounding */
static __device__ __forceinline__ symv_r symv_rfma(symv_r a, symv_r b, symv_r c)
{
#if SYMV_SINGLE
  return fmaf(a, b, c);
#else
  return fma(a, b, c);
#endif
}

#if SYMV_COMPLEX

/* the complex element: re, im; layout and alignment of float2 / double2 */
struct __align__(2 * sizeof(symv_r)) symv_complex {
  symv_r re, im;
};
typedef symv_complex symv_t;

/* builds re + i*im */
static __device__ __forceinline__ symv_t symv_make(symv_r re, symv_r im)
{
  symv_t v;
  v.re = re, v.im = im;
  return v;
}
/* 0 */
static __device__ __forceinline__ symv_t symv_zero() { return symv_make(0, 0); }
/* a + b */
static __device__ __forceinline__ symv_t symv_add(symv_t a, symv_t b) { return symv_make(a.re + b.re, a.im + b.im); }
/* a * b (complex product, fused where it can be) */
static __device__ __forceinline__ symv_t symv_mul(symv_t a, symv_t b)
{
  return symv_make(symv_rfma(a.re, b.re, -(a.im * b.im)), symv_rfma(a.re, b.im, a.im * b.re));
}
/* a * b + c, four fused multiply-adds */
static __device__ __forceinline__ symv_t symv_fma(symv_t a, symv_t b, symv_t c)
{
  return symv_make(symv_rfma(a.re, b.re, symv_rfma(-a.im, b.im, c.re)),
                   symv_rfma(a.re, b.im, symv_rfma(a.im, b.re, c.im)));
}
/* a * b + c: symv_fma (already explicit fmas; see the real case) */
static __device__ __forceinline__ symv_t symv_fma_rn(symv_t a, symv_t b, symv_t c) { return symv_fma(a, b, c); }
/* A(j,i) from the stored A(i,j): conj for HEMV, as is for SYMV */
static __device__ __forceinline__ symv_t symv_mirror(symv_t a)
{
#if SYMV_HERMITIAN
  return symv_make(a.re, -a.im);
#else
  return a;
#endif
}
/* a diagonal element as used: imaginary part ignored for HEMV */
static __device__ __forceinline__ symv_t symv_diag(symv_t a)
{
#if SYMV_HERMITIAN
  return symv_make(a.re, 0);
#else
  return a;
#endif
}
/* a == 0 (both parts; -0 counts as 0) */
static __device__ __forceinline__ bool symv_is_zero(symv_t a) { return a.re == 0 && a.im == 0; }
/* a == 1 */
static __device__ __forceinline__ bool symv_is_one(symv_t a) { return a.re == 1 && a.im == 0; }
/* a != 0 (either part nonzero): !symv_is_zero(a) */
static __device__ __forceinline__ bool symv_nonzero(symv_t a) { return a.re != 0 || a.im != 0; }
/* a != 1: !symv_is_one(a) */
static __device__ __forceinline__ bool symv_not_one(symv_t a) { return a.re != 1 || a.im != 0; }
/* read-only (non-coherent, cached) load of both parts in one instruction, as __ldg */
static __device__ __forceinline__ symv_t symv_ldg(const symv_t *p)
{
  symv_t v;
  asm volatile("ld.global.nc.v2." SYMV_PTX_R " {%0,%1}, [%2];" : "=" SYMV_RC(v.re), "=" SYMV_RC(v.im) : "l"(p));
  return v;
}
/* load cached in L2 only (coherent across blocks), both parts at once, as
 * __ldcg; a memory clobber keeps it after the fences and barriers it follows */
static __device__ __forceinline__ symv_t symv_ldcg(const symv_t *p)
{
  symv_t v;
  asm volatile("ld.global.cg.v2." SYMV_PTX_R " {%0,%1}, [%2];"
               : "=" SYMV_RC(v.re), "=" SYMV_RC(v.im)
               : "l"(p)
               : "memory");
  return v;
}
/* store cached in L2 only, both parts at once, as __stcg */
static __device__ __forceinline__ void symv_stcg(symv_t *p, symv_t v)
{
  asm volatile("st.global.cg.v2." SYMV_PTX_R " [%0], {%1,%2};" ::"l"(p), SYMV_RC(v.re), SYMV_RC(v.im) : "memory");
}
/* __shfl_xor_sync over the full warp, each part */
static __device__ __forceinline__ symv_t symv_shfl_xor(symv_t v, int m)
{
  return symv_make(__shfl_xor_sync(0xffffffffu, v.re, m), __shfl_xor_sync(0xffffffffu, v.im, m));
}
/* __shfl_down_sync over the full warp, each part */
static __device__ __forceinline__ symv_t symv_shfl_down(symv_t v, int d)
{
  return symv_make(__shfl_down_sync(0xffffffffu, v.re, d), __shfl_down_sync(0xffffffffu, v.im, d));
}
/* __shfl_sync (broadcast from lane src) over the full warp, each part */
static __device__ __forceinline__ symv_t symv_shfl(symv_t v, int src)
{
  return symv_make(__shfl_sync(0xffffffffu, v.re, src), __shfl_sync(0xffffffffu, v.im, src));
}
/* *p += v atomically per part (two independent atomics: each part is
 * exact, the pair is not one transaction; result unused, so red.add) */
static __device__ __forceinline__ void symv_atomic_add(symv_t *p, symv_t v)
{
  atomicAdd(&p->re, v.re);
  atomicAdd(&p->im, v.im);
}

#else /* real */

typedef symv_r symv_t;

/* 0 */
static __device__ __forceinline__ symv_t symv_zero() { return 0; }
/* a + b */
static __device__ __forceinline__ symv_t symv_add(symv_t a, symv_t b) { return a + b; }
/* a * b */
static __device__ __forceinline__ symv_t symv_mul(symv_t a, symv_t b) { return a * b; }
/* a * b + c (c + a * b, which the compiler contracts to one fma) */
static __device__ __forceinline__ symv_t symv_fma(symv_t a, symv_t b, symv_t c) { return c + a * b; }
/* a * b + c by an explicit fma() (the pipe families' row sums) */
static __device__ __forceinline__ symv_t symv_fma_rn(symv_t a, symv_t b, symv_t c) { return symv_rfma(a, b, c); }
/* A(j,i) from the stored A(i,j): the same element */
static __device__ __forceinline__ symv_t symv_mirror(symv_t a) { return a; }
/* a diagonal element as used: as stored */
static __device__ __forceinline__ symv_t symv_diag(symv_t a) { return a; }
/* The four tests are macros here, not inline functions: a comparison
 * returned through an inline function changed the branch layout of the
 * DSYMV kernels (and, at some points, their register counts); as macros the
 * DSYMV cubins are byte for byte those of the double-only sources. */
/* a == 0 */
#define symv_is_zero(a) ((a) == 0)
/* a == 1 */
#define symv_is_one(a) ((a) == 1)
/* a != 0 */
#define symv_nonzero(a) ((a) != 0)
/* a != 1 */
#define symv_not_one(a) ((a) != 1)
/* read-only (non-coherent, cached) load: __ldg */
static __device__ __forceinline__ symv_t symv_ldg(const symv_t *p) { return __ldg(p); }
/* load cached in L2 only: __ldcg */
static __device__ __forceinline__ symv_t symv_ldcg(const symv_t *p) { return __ldcg(p); }
/* store cached in L2 only: __stcg */
static __device__ __forceinline__ void symv_stcg(symv_t *p, symv_t v) { __stcg(p, v); }
/* __shfl_xor_sync over the full warp */
static __device__ __forceinline__ symv_t symv_shfl_xor(symv_t v, int m) { return __shfl_xor_sync(0xffffffffu, v, m); }
/* __shfl_down_sync over the full warp */
static __device__ __forceinline__ symv_t symv_shfl_down(symv_t v, int d) { return __shfl_down_sync(0xffffffffu, v, d); }
/* __shfl_sync (broadcast from lane src) over the full warp */
static __device__ __forceinline__ symv_t symv_shfl(symv_t v, int src) { return __shfl_sync(0xffffffffu, v, src); }
/* *p += v atomically (result unused, so red.add) */
static __device__ __forceinline__ void symv_atomic_add(symv_t *p, symv_t v) { atomicAdd(p, v); }

#endif

/* *p := beta * *p, with beta = 0 writing 0 without reading *p (BLAS: y is
 * not read when beta is zero, so a NaN there does not propagate) */
static __device__ __forceinline__ void symv_scale_elem(symv_t *p, symv_t beta)
{
  *p = symv_is_zero(beta) ? symv_zero() : symv_mul(beta, *p);
}

#endif
