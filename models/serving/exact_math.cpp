// fdlibm's log and exp (Sun Microsystems, 1993; freely usable with its notice), restated: argument reduction by
// powers of two (frexp / ldexp are exact) and a minimax polynomial, every step a correctly rounded IEEE operation.
// The result is the same on every platform whose compiler does not fuse a*b+c into one rounding (docs/serving-model.md,
// "Random numbers").
#include "models/serving/exact_math.hpp"

#include <cmath>
#include <limits>

namespace podsim {
namespace {

constexpr double kFdlibmLn2Hi =
    6.93147180369123816490e-01;  // 0x3FE62E42FEE00000: k * kFdlibmLn2Hi is exact for |k| < 2^11
constexpr double kFdlibmLn2Lo = 1.90821492927058770002e-10;  // 0x3DEA39EF35793C76
constexpr double kFdlibmSqrtHalf = 0.70710678118654752440;

// log(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2)) with s = f / (2 + f); fdlibm's Lg1..Lg7.
constexpr double kFdlibmLg1 = 6.666666666666735130e-01;
constexpr double kFdlibmLg2 = 3.999999999940941908e-01;
constexpr double kFdlibmLg3 = 2.857142874366239149e-01;
constexpr double kFdlibmLg4 = 2.222219843214978396e-01;
constexpr double kFdlibmLg5 = 1.818357216161805012e-01;
constexpr double kFdlibmLg6 = 1.531383769920937332e-01;
constexpr double kFdlibmLg7 = 1.479819860511658591e-01;

// exp(r) = 1 + r + r c / (2 - c) with c = r - r^2 P(r^2), on |r| <= ln2 / 2; fdlibm's P1..P5.
constexpr double kFdlibmExpP1 = 1.66666666666666019037e-01;
constexpr double kFdlibmExpP2 = -2.77777777770155933842e-03;
constexpr double kFdlibmExpP3 = 6.61375632143793436117e-05;
constexpr double kFdlibmExpP4 = -1.65339022054652515390e-06;
constexpr double kFdlibmExpP5 = 4.13813679705723846039e-08;
constexpr double kFdlibmInvLn2 = 1.44269504088896338700e+00;
constexpr double kFdlibmExpOverflow = 7.09782712893383973096e+02;
constexpr double kFdlibmExpUnderflow = -7.45133219101941108420e+02;

}  // namespace

double exact_log(double x) {
  if (std::isnan(x) || x < 0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0) return -std::numeric_limits<double>::infinity();
  if (std::isinf(x)) return x;
  int exponent = 0;
  double m = std::frexp(x, &exponent);  // x = m 2^exponent, m in [0.5, 1)
  if (m < kFdlibmSqrtHalf) {
    m *= 2;
    exponent -= 1;
  }
  // m in [sqrt(1/2), sqrt(2)): f = m - 1 is exact (Sterbenz) and small.
  const double f = m - 1.0;
  const double k = exponent;
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double w = z * z;
  const double t1 = w * (kFdlibmLg2 + w * (kFdlibmLg4 + w * kFdlibmLg6));
  const double t2 = z * (kFdlibmLg1 + w * (kFdlibmLg3 + w * (kFdlibmLg5 + w * kFdlibmLg7)));
  const double r = t2 + t1;
  const double hfsq = 0.5 * f * f;
  return k * kFdlibmLn2Hi - ((hfsq - (s * (hfsq + r) + k * kFdlibmLn2Lo)) - f);
}

double exact_exp(double x) {
  if (std::isnan(x)) return x;
  if (x > kFdlibmExpOverflow) return std::numeric_limits<double>::infinity();
  if (x < kFdlibmExpUnderflow) return 0.0;
  // x = k ln2 + r, |r| <= ln2 / 2, with ln2 split in two so that hi - lo carries r to full precision.
  int k = 0;
  double hi = x;
  double lo = 0.0;
  if (std::fabs(x) > 0.5 * kFdlibmLn2Hi) {
    k = static_cast<int>(kFdlibmInvLn2 * x + (x < 0 ? -0.5 : 0.5));
    hi = x - k * kFdlibmLn2Hi;
    lo = k * kFdlibmLn2Lo;
  }
  const double r = hi - lo;
  const double t = r * r;
  const double c =
      r - t * (kFdlibmExpP1 + t * (kFdlibmExpP2 + t * (kFdlibmExpP3 + t * (kFdlibmExpP4 + t * kFdlibmExpP5))));
  const double y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
  return std::ldexp(y, k);
}

}  // namespace podsim
