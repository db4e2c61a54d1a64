// Natural logarithm and exponential from IEEE-754 additions, multiplications and divisions only, so that the
// serving model's random draws are the same bit for bit whatever the C library: the standard leaves std::log and
// std::exp free to differ in the last place. The algorithms and coefficients are fdlibm's (e_log.c, e_exp.c).
#pragma once

namespace podsim {

// ln(x): -inf at 0, NaN below 0 or for NaN, +inf at +inf. Within one unit in the last place of the exact value.
double exact_log(double x);

// e^x: +inf above 709.78, 0 below -745.13, NaN for NaN. Within one unit in the last place of the exact value.
double exact_exp(double x);

}  // namespace podsim
