/* stats_chi2.c - the chi-squared upper tail (see stats_chi2.h). */
#include "stats_chi2.h"

#include <math.h>

/* Regularized lower incomplete gamma P(a, x) by its series (x < a + 1). */
static double s_gamma_p_series(double a, double x)
{
    double sum = 1.0 / a, term = sum;
    for (int n = 1; n < 1000; n++) {
        term *= x / (a + n);
        sum += term;
        if (fabs(term) < fabs(sum) * 1e-15)
            break;
    }
    return sum * exp(-x + a * log(x) - lgamma(a));
}

/* Regularized upper incomplete gamma Q(a, x) by its continued fraction
 * (modified Lentz; x >= a + 1). */
static double s_gamma_q_fraction(double a, double x)
{
    const double tiny = 1e-300;
    double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
    for (int i = 1; i < 1000; i++) {
        double an = -i * (i - a);
        b += 2.0;
        d = an * d + b;
        if (fabs(d) < tiny)
            d = tiny;
        c = b + an / c;
        if (fabs(c) < tiny)
            c = tiny;
        d = 1.0 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1.0) < 1e-15)
            break;
    }
    return exp(-x + a * log(x) - lgamma(a)) * h;
}

double stats_chi2_upper(double x, int df)
{
    if (df < 1 || !(x > 0))
        return 1.0;
    double a = df / 2.0, hx = x / 2.0;
    if (hx < a + 1.0)
        return 1.0 - s_gamma_p_series(a, hx);
    return s_gamma_q_fraction(a, hx);
}
