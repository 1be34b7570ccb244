"""The kernels of the gamma family (``lgamma``, ``digamma``, ``polygamma``), as PyTorch's CPU computes them.

NumPy has none of these functions, and a textbook series gives other last bits than PyTorch's. So each is
PyTorch's own algorithm, replayed step by step on arrays (the ops, with their derivatives, are in
:mod:`autograd_lab.ops.pointwise`):

- ``lgamma``: PyTorch's vector kernel calls SLEEF (``Sleef_lgammad4_u10``, ``Sleef_lgammaf8_u10`` and
  their AVX-512 twins): Stirling's series or a polynomial, the reflection formula for ``x < 0.5``, all in
  double-double (float-float) arithmetic, where every ``a * b + c`` is one fused multiply-add (FMA)
  instruction. Replayed here with the FMA emulated exactly (:func:`fma`): PyTorch's values bit for bit.
- ``digamma``, ``polygamma(1, x)`` and ``polygamma(n >= 2, x)``: Cephes' series as PyTorch's
  ``aten/src/ATen/native/Math.h`` writes them (``calc_digamma``, ``trigamma``, ``zeta``), in its order
  of operations and with the multiply-adds the compiler fused; the C library's ``log``, ``tan``,
  ``sin`` and ``pow`` called through ctypes, element by element, as PyTorch's scalar loop calls them.
  Bit for bit where that C library is found (glibc, macOS's); else NumPy's functions stand in, within
  a unit in the last place.

float16 as PyTorch's kernels take it: ``lgamma``, ``digamma`` and ``polygamma(1, x)`` in float, rounded;
``polygamma(n >= 2, x)`` with ``zeta`` summed in float and rounded to half before the product.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .promotion import fused_multiply_add as fma

Pair = tuple[np.ndarray, np.ndarray]  # a double-double (float-float) number: hi + lo, |lo| <= ulp(hi) / 2


# ---------------------------------------------------------------------------- double-double arithmetic
# SLEEF's dd.h / df.h, FMA versions. A number is a Pair or a plain array (its low part 0, not added).
def _parts(x: Pair | np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    return x if isinstance(x, tuple) else (x, None)


def _add2(x: Pair | np.ndarray, y: Pair | np.ndarray) -> Pair:
    """``x + y`` (SLEEF's ``ddadd2``: no assumption on which is larger): the high parts' sum and its
    exact error (TwoSum), plus the low parts."""
    (xh, xl), (yh, yl) = _parts(x), _parts(y)
    hi = xh + yh
    v = hi - xh
    lo = (xh - (hi - v)) + (yh - v)
    if xl is not None and yl is not None:
        return hi, lo + (xl + yl)
    rest = xl if yl is None else yl
    return hi, lo if rest is None else lo + rest


def _add(x: Pair, y: Pair) -> Pair:
    """``x + y`` with ``|x| >= |y|`` (SLEEF's ``ddadd``)."""
    hi = x[0] + y[0]
    return hi, (((x[0] - hi) + y[0]) + x[1]) + y[1]


def _mul(x: Pair | np.ndarray, y: Pair | np.ndarray) -> Pair:
    """``x * y``: the high parts' product and its exact error by FMA, plus the cross terms."""
    if not isinstance(x, tuple):
        hi = x * y
        return hi, fma(x, y, -hi)
    hi = x[0] * (y[0] if isinstance(y, tuple) else y)
    if not isinstance(y, tuple):
        return hi, fma(x[1], y, fma(x[0], y, -hi))
    return hi, fma(x[0], y[1], fma(x[1], y[0], fma(x[0], y[0], -hi)))


def _square(x: Pair) -> Pair:
    hi = x[0] * x[0]
    return hi, fma(x[0] + x[0], x[1], fma(x[0], x[0], -hi))


def _div(n: Pair, d: Pair) -> Pair:
    """``n / d``: a reciprocal and a correction, by FMA (SLEEF's ``dddiv``)."""
    one = d[0].dtype.type(1)
    t = one / d[0]
    hi = n[0] * t
    u = fma(t, n[0], -hi)
    lo = fma(-d[1], t, fma(-d[0], t, one))
    return hi, fma(hi, lo, fma(n[1], t, u))


def _normalize(x: Pair) -> Pair:
    hi = x[0] + x[1]
    return hi, (x[0] - hi) + x[1]


def _neg(x: Pair) -> Pair:
    return -x[0], -x[1]


def _where(mask: np.ndarray, x: Pair, y: Pair) -> Pair:
    return np.where(mask, x[0], y[0]), np.where(mask, x[1], y[1])


def _pair(value: float, dt: np.dtype) -> Pair:
    """A double as a float-float (SLEEF's ``vcast_vf2_d``), or a double with a low part of 0."""
    hi = dt.type(value)
    return hi, dt.type(value - float(hi))


# ---------------------------------------------------------------------------- lgamma: SLEEF's
def _ilogb(x: np.ndarray) -> np.ndarray:
    """The exponent of ``x`` (``x = m * 2**e``, 1 <= m < 2) of a positive normal ``x``."""
    return (np.frexp(x)[1] - 1).astype(np.int32)


def _pow2(e: np.ndarray, dt: np.dtype) -> np.ndarray:
    return np.ldexp(dt.type(1), e).astype(dt)


def _log2k(d: Pair) -> Pair:
    """``log(d)`` in double-double (SLEEF's ``logk2``): ``d = m * 2**e``, ``m`` in [0.75, 1.5), and
    ``log(m) = 2 atanh((m - 1) / (m + 1))``, an odd series in ``x = (m - 1) / (m + 1)``."""
    dt = d[0].dtype
    f32 = dt == np.float32
    e = _ilogb(d[0] * dt.type(1.0 / 0.75))
    if f32:  # (2**-e in one factor; double: in two, as SLEEF's vldexp2, so that neither overflows)
        m = (d[0] * _pow2(-e, dt), d[1] * _pow2(-e, dt))
    else:
        m = tuple(v * _pow2(-e >> 1, dt) * _pow2(-e - (-e >> 1), dt) for v in d)
    x = _div(_add2(m, dt.type(-1)), _add2(m, dt.type(1)))
    x2 = _square(x)
    c = [dt.type(v) for v in _LOG_SERIES[f32]]
    if f32:  # Horner's scheme
        t = c[0]
        for ci in c[1:]:
            t = fma(t, x2[0], ci)
    else:  # Estrin's: the powers x2, x4, x8 first (SLEEF's POLY7), then the last term
        p, p2 = x2[0], x2[0] * x2[0]
        p4 = p2 * p2
        t = fma(p4, fma(p2, c[0], fma(p, c[1], c[2])), fma(p2, fma(p, c[3], c[4]), fma(p, c[5], c[6])))
        t = fma(t, p, c[7])
    ln2 = (dt.type(_LN2[f32][0]), dt.type(_LN2[f32][1]))
    s = _add(_mul(ln2, e.astype(dt)), (x[0] * dt.type(2), x[1] * dt.type(2)))
    return _add(s, _mul(_mul(x2, x), t))


_LOG_SERIES = {  # the series' coefficients, highest power first
    False: (0.13860436390467167910856, 0.131699838841615374240845, 0.153914168346271945653214,
            0.181816523941564611721589, 0.22222224632662035403996, 0.285714285511134091777308,
            0.400000000000914013309483, 0.666666666666664853302393),
    True: (0.2392828464508056640625, 0.28518211841583251953125, 0.400005877017974853515625,
           0.666666686534881591796875),
}
_LN2 = {False: (0.693147180559945286226764, 2.319046813846299558417771e-17),
        True: (0.69314718246459960938, -1.904654323148236017e-09)}


def _sinpi(d: np.ndarray) -> Pair:
    """``sin(pi d)`` in double-double (SLEEF's ``sinpik``): ``4 d`` reduced to [-1, 1] around an even
    quadrant ``q``, then sin's or cos's series by quadrant, the sign by ``q & 4``."""
    dt = d.dtype
    f32 = dt == np.float32
    u = d * dt.type(4)
    if f32:  # (float: truncate, then round up to even; double: round u + 1/2 to an integer, then down)
        q = _int32(np.trunc(u))
        q = (q + ((q.view(np.uint32) >> 31).astype(np.int32) ^ 1)) & ~1
    else:
        q = _int32(np.rint(u + 0.5)) & ~1
    cos_quadrant = (q & 2) == 2
    s = u - q.astype(dt)
    t, s, s2 = s, s * s, _mul(s, s)
    coefs = _SINPI[f32]

    def pick(i: int) -> np.ndarray:
        return np.where(cos_quadrant, dt.type(coefs[0][i]), dt.type(coefs[1][i]))

    n = len(coefs[0]) - 4
    u = pick(0)
    for i in range(1, n):
        u = fma(u, s, pick(i))
    x = _add2(u * s, (pick(n), pick(n + 1)))
    x = _add2(_mul(s2, x), (pick(n + 2), pick(n + 3)))
    x = _mul(x, _where(cos_quadrant, s2, (t, np.zeros_like(t))))
    x = _where(cos_quadrant, _add2(x, dt.type(1)), x)
    flip = (q & 4) == 4
    return np.where(flip, -x[0], x[0]), np.where(flip, -x[1], x[1])


_SINPI = {  # (the cosine's, the sine's): the series in s, then two double-double constants
    False: ((9.94480387626843774090208e-16, -3.89796226062932799164047e-13, 1.150115825399960352669010e-10,
             -2.46113695010446974953590e-08, 3.590860448590527540050620e-06, -0.000325991886927389905997954,
             0.0158543442438155018914259, -1.04693272280631521908845e-18,
             -0.308425137534042437259529, -1.95698492133633550338345e-17),
            (-2.02461120785182399295868e-14, 6.948218305801794613277840e-12, -1.75724749952853179952664e-09,
             3.133616889668683928784220e-07, -3.65762041821615519203610e-05, 0.0024903945701927185027435600,
             -0.0807455121882807852484731, 3.61852475067037104849987e-18,
             0.785398163397448278999491, 3.06287113727155002607105e-17)),
    True: ((-0.2430611801e-7, +0.3590577080e-5, -0.3259917721e-3,
            0.015854343771934509277, 4.4940051354032242811e-10,
            -0.30842512845993041992, -9.0728339030733922277e-09),
           (+0.3093842054e-6, -0.3657307388e-4, +0.2490393585e-2,
            -0.080745510756969451904, -1.3373665339076936258e-09,
            0.78539818525314331055, -2.1857338617566484855e-08)),
}


def _int32(x: np.ndarray) -> np.ndarray:
    """A float's conversion to int32 as the vector instruction makes it (out of range: -2**31)."""
    inside = np.abs(x) < 2.0 ** 31
    return np.where(inside, np.where(inside, x, 0), -2.0 ** 31).astype(np.int32)


def _gamma_parts(a: np.ndarray) -> tuple[Pair, Pair]:
    """SLEEF's ``gammak``: ``log(c)`` and ``d`` with ``Gamma(a) = c * d``. ``a >= 2.3``: Stirling's series
    after shifting ``a`` up by the rising product ``a (a+1) ... (a+4)`` (float: ``... (a+2)``), for
    ``a <= 7``; below, a polynomial around 1 or 2; ``a < 0.5``: the reflection formula
    ``Gamma(a) Gamma(1 - a) = pi / sin(pi a)``; ``|a|`` tiny: ``Gamma(a) ~ 1 / a``."""
    dt = a.dtype
    f32 = dt == np.float32
    K = _GAMMA[f32]
    one, zero = dt.type(1), np.zeros_like(a)
    tiny, reflect = np.abs(a) < dt.type(K["tiny"]), a < dt.type(0.5)
    x = _where(tiny, (zero, zero), _where(reflect, _add2(one, -a), (a, zero)))
    near_one = (dt.type(0.5) <= x[0]) & (x[0] <= dt.type(K["near_one"]))
    stirling = dt.type(2.3) <= x[0]
    y = _normalize(_mul(_add2(x, one), x))
    for k in range(2, K["shift"]):
        y = _normalize(_mul(_add2(x, dt.type(k)), y))
    shifted = stirling & (x[0] <= dt.type(7))
    ones = (zero + one, zero)
    numerator = _where(shifted, y, ones)
    x = _where(shifted, _add2(x, dt.type(K["shift"])), x)
    t = np.where(stirling, one / x[0],
                 _normalize(_add2(x, np.where(near_one, dt.type(-1), dt.type(-2))))[0])
    u = None
    for c_stirling, c_one, c_two in K["series"]:
        c = np.where(stirling, dt.type(c_stirling), np.where(near_one, dt.type(c_one), dt.type(c_two)))
        u = c if u is None else fma(u, t, c)
    y = _mul(_add2(x, dt.type(-0.5)), _log2k(x))  # Stirling: (x - 1/2) log x - x + log(2 pi) / 2 + ...
    y = _add2(y, _neg(x))
    y = _add2(y, _pair(K["log_sqrt_2pi"][0], dt) if f32 else tuple(dt.type(v) for v in K["log_sqrt_2pi"]))
    z = _add2(_mul(u, t), np.where(near_one, dt.type(K["tail"][0][0]), dt.type(K["tail"][1][0])))
    for i in (1, 2):
        z = _add2(_mul(z, t), np.where(near_one, dt.type(K["tail"][0][i]), dt.type(K["tail"][1][i])))
    z = _mul(z, t)
    log_c = _where(stirling, y, z)
    denominator = _where(stirling, _add2(_mul(u, t), one), ones)
    log_tiny, log_pi = (_pair(K["log_tiny"][0], dt), _pair(K["log_pi"][0], dt)) if f32 else (
        tuple(dt.type(v) for v in K["log_tiny"]), tuple(dt.type(v) for v in K["log_pi"]))
    log_c = _where(tiny, (zero + log_tiny[0], zero + log_tiny[1]),
                   _where(reflect, _add2(log_pi, _neg(log_c)), log_c))
    top = _where(tiny, ones, _where(reflect, numerator, denominator))
    cut = dt.type(K["cut"])  # a - its multiple of 2**28 (float: 2**12): sin(pi a)'s argument, exact
    r = a - cut * _int32(a * dt.type(1 / K["cut"])).astype(dt)
    bottom = _where(tiny, (a * dt.type(K["tiny_scale"]), zero),
                    _where(reflect, _mul(denominator, _sinpi(r)), numerator))
    return log_c, _div(top, bottom)


_GAMMA = {
    False: {
        "tiny": 1e-306, "near_one": 1.1, "shift": 5, "cut": float(1 << 28), "tiny_scale": 2.0 ** 120,
        "log_sqrt_2pi": (0.91893853320467278056, -3.8782941580672414498e-17),
        "log_pi": (1.1447298858494001639, 1.026595116270782638e-17),
        "log_tiny": (83.1776616671934334590333, 3.67103459631568507221878e-15),  # log(2**120)
        "tail": ((-0.4006856343865314862e+0, +0.8224670334241132030e+0, -0.5772156649015328655e+0),
                 (-0.6735230105319810201e-1, +0.3224670334241132030e+0, +0.4227843350984671345e+0)),
        "series": (  # (Stirling's, around 1, around 2), highest power first
            (-156.801412704022726379848862, +0.2947916772827614196e+2, +0.7074816000864609279e-7),
            (+1.120804464289911606838558160000, +0.1281459691827820109e+3, +0.4009244333008730443e-6),
            (+13.39798545514258921833306020000, +0.2617544025784515043e+3, +0.1040114641628246946e-5),
            (-0.116546276599463200848033357000, +0.3287022855685790432e+3, +0.1508349150733329167e-5),
            (-1.391801093265337481495562410000, +0.2818145867730348186e+3, +0.1288143074933901020e-5),
            (+0.015056113040026424412918973400, +0.1728670414673559605e+3, +0.4744167749884993937e-6),
            (+0.179540117061234856098844714000, +0.7748735764030416817e+2, -0.6554816306542489902e-7),
            (-0.002481743600264997730942489280, +0.2512856643080930752e+2, -0.3189252471452599844e-6),
            (-0.029527880945699120504851034100, +0.5766792106140076868e+1, +0.1358883821470355377e-6),
            (+0.000540164767892604515196325186, +0.7270275473996180571e+0, -0.4343931277157336040e-6),
            (+0.006403362833808069794787256200, +0.8396709124579147809e-1, +0.9724785897406779555e-6),
            (-0.000162516262783915816896611252, -0.8211558669746804595e-1, -0.2036886057225966011e-5),
            (-0.001914438498565477526465972390, +0.6828831828341884458e-1, +0.4373363141819725815e-5),
            (+7.20489541602001055898311517e-05, -0.7712481339961671511e-1, -0.9439951268304008677e-5),
            (+0.000839498720672087279971000786, +0.8337492023017314957e-1, +0.2050727030376389804e-4),
            (-5.17179090826059219329394422e-05, -0.9094964931456242518e-1, -0.4492620183431184018e-4),
            (-0.000592166437353693882857342347, +0.1000996313575929358e+0, +0.9945751236071875931e-4),
            (+6.97281375836585777403743539e-05, -0.1113342861544207724e+0, -0.2231547599034983196e-3),
            (+0.000784039221720066627493314301, +0.1255096673213020875e+0, +0.5096695247101967622e-3),
            (-0.000229472093621399176949318732, -0.1440498967843054368e+0, -0.1192753911667886971e-2),
            (-0.002681327160493827160473958490, +0.1695571770041949811e+0, +0.2890510330742210310e-2),
            (+0.003472222222222222222175164840, -0.2073855510284092762e+0, -0.7385551028674461858e-2),
            (+0.083333333333333333335592087900, +0.2705808084277815939e+0, +0.2058080842778455335e-1)),
    },
    True: {
        "tiny": 1e-30, "near_one": 1.2, "shift": 3, "cut": float(1 << 12), "tiny_scale": 2.0 ** 60,
        "log_sqrt_2pi": (0.91893853320467278056,), "log_pi": (1.1447298858494001639,),
        "log_tiny": (41.58883083359671856503,),  # log(2**60)
        "tail": ((-0.400686534596170958447352690395e+0, +0.822466960142643054450325495997e+0,
                  -0.577215665946766039837398973297e+0),
                 (-0.673523028297382446749257758235e-1, +0.322467033928981157743538726901e+0,
                  +0.422784335087484338986941629852e+0)),
        "series": (
            (+0.000839498720672087279971000786, +0.9435157776e+0, +0.1102489550e-3),
            (-5.17179090826059219329394422e-05, +0.8670063615e+0, +0.8160019934e-4),
            (-0.000592166437353693882857342347, +0.4826702476e+0, +0.1528468856e-3),
            (+6.97281375836585777403743539e-05, -0.8855129778e-1, -0.2355068718e-3),
            (+0.000784039221720066627493314301, +0.1013825238e+0, +0.4962242092e-3),
            (-0.000229472093621399176949318732, -0.1493408978e+0, -0.1193488017e-2),
            (-0.002681327160493827160473958490, +0.1697509140e+0, +0.2891599433e-2),
            (+0.003472222222222222222175164840, -0.2072454542e+0, -0.7385451812e-2),
            (+0.083333333333333333335592087900, +0.2705872357e+0, +0.2058077045e-1)),
    },
}


@np.errstate(all="ignore")
def lgamma(x: np.ndarray) -> np.ndarray:
    """``log |Gamma(x)|``: SLEEF's ``lgamma_u1``, ``log(c) + log |d|`` from :func:`_gamma_parts`; +inf at
    the poles (0 and the negative integers) and at +-inf."""
    if x.dtype == np.float16:
        return lgamma(x.astype(np.float32)).astype(np.float16)
    a = np.ascontiguousarray(x).reshape(-1)
    log_c, d = _gamma_parts(a)
    d = (np.abs(d[0]), np.where(np.signbit(d[0]), -d[1], d[1]))
    y = _add2(log_c, _log2k(d))
    r = y[0] + y[1]
    pole = (a <= 0) & (a == np.trunc(a))
    r = np.where(np.isinf(a) | pole | (np.isfinite(a) & np.isnan(r)), x.dtype.type(np.inf), r)
    return _nan_through(a, r).reshape(x.shape)


def _nan_through(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out``, but nan where ``x`` is nan: ``x``'s own, quieted, as the instructions pass it through
    (the emulation's other steps may give another nan's sign)."""
    nan = np.isnan(x)
    return np.where(nan, x + x.dtype.type(0), out) if nan.any() else out


# ---------------------------------------------------------------------------- the C library's functions
@functools.cache
def _libm() -> Any:
    try:
        return ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
    except OSError:
        return None


@functools.cache
def c_function(name: str, dtype: type = np.float64, nargs: int = 1) -> Callable[..., np.ndarray]:
    """The C library's ``name`` (``log``, ``logf``, ``pow``, ...) on arrays of ``dtype``, element by
    element: the very function PyTorch's scalar loops call. Without a C library: NumPy's, in double."""
    lib = _libm()
    if lib is None:  # (the float version computed in double and rounded)
        ufunc = _NUMPY_STAND_INS[name.rstrip("f")]
        return lambda *xs: np.asarray(ufunc(*(np.asarray(v, np.float64) for v in xs)), float).astype(dtype)
    c_type = ctypes.c_float if dtype == np.float32 else ctypes.c_double
    fn = getattr(lib, name)
    fn.restype, fn.argtypes = c_type, [c_type] * nargs
    each = np.frompyfunc(fn, nargs, 1)
    return lambda *xs: np.asarray(each(*xs), float).astype(dtype)


_NUMPY_STAND_INS = {"log": np.log, "exp": np.exp, "tan": np.tan, "sin": np.sin, "pow": np.power,
                    "lgamma": np.frompyfunc(math.lgamma, 1, 1)}


def _c(name: str, dt: np.dtype) -> Callable[..., np.ndarray]:
    """``name`` for double, ``namef`` for float, as C++'s std::name picks it."""
    return c_function(name + ("f" if dt == np.float32 else ""), dt.type)


# ---------------------------------------------------------------------------- digamma, trigamma, polygamma
_PSI_SERIES = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
               -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
               8.33333333333333333333E-2)


@np.errstate(all="ignore")
def digamma(x: np.ndarray) -> np.ndarray:
    """``Gamma'(x) / Gamma(x)`` (PyTorch's ``calc_digamma``): pushed up to ``x >= 10`` by
    ``psi(x) = psi(x + 1) - 1 / x``, then the asymptotic series after ``log x - 1 / (2x)``; below 0 the
    reflection ``psi(x) = psi(1 - x) - pi / tan(pi x)``. ``psi(+-0) = -+inf``, nan at the negative
    integers."""
    dt = x.dtype
    if dt == np.float16:
        return digamma(x.astype(np.float32)).astype(np.float16)
    one = dt.type(1)
    negative = x < 0
    # pi / tan(pi r), r the fraction of x (exact), in double (float: rounded to float once)
    reflection = np.zeros_like(x)
    fraction = np.modf(x[negative].astype(np.float64))[0]
    reflection[negative] = math.pi / c_function("tan")(math.pi * fraction)
    y = np.where(negative, one - x, x)
    result = np.zeros_like(y)
    for _ in range(10):  # (at most 10 steps up to 10)
        low = y < 10
        result = np.where(low, result - one / y, result)
        y = np.where(low, y + one, y)
    z = one / (y * y)
    series = np.zeros_like(z)
    for c in _PSI_SERIES:  # polevl, each step one fused multiply-add
        series = fma(series, z, dt.type(c))
    tail = np.where(y < dt.type(1e17), z * series, dt.type(0))
    out = result + _c("log", dt)(y) - dt.type(0.5) / y - tail
    out = np.where(y == 10, result + dt.type(2.25175258906672110764), out)  # (psi(10), exactly there)
    out = np.where(negative, np.where(x == np.trunc(x), dt.type(np.nan), out - reflection), out)
    return _nan_through(x, np.where(x == 0, np.copysign(dt.type(np.inf), -x), out))


@np.errstate(all="ignore")
def trigamma(x: np.ndarray) -> np.ndarray:
    """``polygamma(1, x)`` (PyTorch's ``trigamma``): the reflection ``pi**2 / sin(pi x)**2`` below 1/2,
    six terms ``1 / x**2`` stepping x up, then the asymptotic series (its multiply-adds fused)."""
    dt = x.dtype
    if dt == np.float16:
        return trigamma(x.astype(np.float32)).astype(np.float16)
    one, pi = dt.type(1), dt.type(math.pi)
    small = x < dt.type(0.5)
    sin_pi_x = np.ones_like(x)
    sin_pi_x[small] = _c("sin", dt)(pi * x[small])
    result = np.where(small, -((pi * pi) / (sin_pi_x * sin_pi_x)), dt.type(0))
    y = np.where(small, one - x, x)
    for _ in range(6):
        result = result + one / (y * y)
        y = y + one
    ixx = one / (y * y)
    sixth, thirtieth, fortysecond = one / dt.type(6), one / dt.type(30), one / dt.type(42)
    series = fma(ixx, fma(-ixx, fma(-ixx, fortysecond, thirtieth), sixth), one + one / (dt.type(2) * y))
    result = result + series / y
    return _nan_through(x, np.where(small, -result, result))


_MACHEP = 1.11022302462515654042E-16
_ZETA_SERIES = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
                -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
                1.8152105401943546773e17, -7.1661652561756670113e18)


@np.errstate(all="ignore")
def zeta(s: float, q: np.ndarray) -> np.ndarray:
    """Hurwitz's zeta ``sum over k >= 0 of (q + k)**-s``, ``s > 1`` an integer (Cephes' ``zeta`` as
    PyTorch's ``Math.h`` has it): terms added one by one, from ``k = 1`` at least to ``q + k > 9`` and
    ``k = 9``, until one is below machine epsilon of the sum, then the Euler-Maclaurin tail; ``q`` a
    pole (0, a negative integer): inf. In PyTorch's accumulator type: double (float16: float), the
    first term ``pow(q, -s)`` in q's type (``powf`` for float32 and float16), the result in q's dtype.

    PyTorch's loop is element by element; here the terms of a block of steps are summed at once for every
    element (``np.add.accumulate`` adds in order, as the loop), blocks of 16, 64, ... for the elements not
    done yet. A very negative ``q`` takes ``|q|`` steps, as PyTorch's."""
    acc = np.dtype(np.float32 if q.dtype == np.float16 else np.float64)
    one, eps = acc.type(1), acc.type(_MACHEP)
    q = np.ascontiguousarray(q).reshape(-1)
    out = np.full(q.size, np.nan, acc)
    pole = (q <= 0) & (q == np.floor(q))
    out[pole] = np.inf
    pow_ = c_function("powf" if acc == np.float32 else "pow", acc.type, 2)
    first = pow_(q, -s) if q.dtype == np.float64 else c_function("powf", np.float32, 2)(q, -np.float32(s))
    live = np.flatnonzero(~pole)  # (nan too: the C library's pow decides the sign of the nan returned)
    a, total, steps = q[live].astype(acc), first[live].astype(acc), 0
    ended, ended_a, ended_b, ended_total = [], [], [], []  # where the loop ran out: the tail's inputs
    block = 16
    while live.size:
        aa = np.add.accumulate(np.concatenate([a[:, None], np.ones((live.size, block), acc)], axis=1), axis=1)
        b = pow_(aa[:, 1:], -s)
        sums = np.add.accumulate(np.concatenate([total[:, None], b], axis=1), axis=1)[:, 1:]
        small = (-eps * sums < b) & (b < eps * sums)  # the term below epsilon: return the sum
        more = (steps + np.arange(1, block + 1) < 9) | (aa[:, 1:] <= 9)  # ((i < 9) || (a <= 9))
        stop = small | ~more
        done, at = stop.any(axis=1), np.argmax(stop, axis=1)
        rows = np.arange(live.size)
        returned = done & small[rows, at]
        out[live[returned]] = sums[rows, at][returned]
        fell = done & ~returned
        ended.append(live[fell])
        ended_a.append(aa[rows, at + 1][fell])
        ended_b.append(b[rows, at][fell])
        ended_total.append(sums[rows, at][fell])
        live, a, total = live[~done], aa[~done, block], sums[~done, block - 1]
        steps += block
        block = min(4 * block, 4096)
    if ended:  # the Euler-Maclaurin tail: Bernoulli's terms until one is below epsilon
        w, b, total = (np.concatenate(v) for v in (ended_a, ended_b, ended_total))
        x = acc.type(s)
        total = fma(acc.type(-0.5), b, total + b * w / (x - one))
        a, k = np.ones_like(total), acc.type(0)
        converged = np.zeros(total.size, bool)
        for c in _ZETA_SERIES:
            a = a * (x + k)
            b = b / w
            t = a * b / acc.type(c)
            total = np.where(converged, total, total + t)
            converged |= np.abs(t / total) < eps
            k += one
            a = a * (x + k)
            b = b / w
            k += one
        out[np.concatenate(ended)] = total
    return out.astype(q.dtype)


@np.errstate(all="ignore")
def polygamma(n: int, x: np.ndarray) -> np.ndarray:
    """The ``n``-th derivative of digamma: ``digamma`` (``n = 0``), ``trigamma`` (``n = 1``), else
    ``(-1)**(n + 1) n! zeta(n + 1, x)``, ``n!`` as ``exp(lgamma(n + 1))`` of the C library (PyTorch's
    ``calc_polygamma``). float16: ``n!`` in float, zeta's sum in float rounded to half, as there."""
    dt = x.dtype
    if n == 0:
        return digamma(x)
    if n == 1:
        return trigamma(x)
    ct = np.dtype(np.float32 if dt == np.float16 else dt)  # (C's exp and lgamma: float for half)
    factorial = _c("exp", ct)(_c("lgamma", ct)(np.asarray(dt.type(n) + dt.type(1), ct)))
    sign = ct.type(1 if n % 2 else -1)
    return ((sign * factorial) * zeta(float(dt.type(n + 1)), x).reshape(x.shape).astype(ct)).astype(dt)
