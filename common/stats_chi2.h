/* stats_chi2.h - the upper tail of the chi-squared distribution, for the
 * outlier test of workers and the lack-of-fit test of piece-value studies. */
#ifndef CAPA_STATS_CHI2_H
#define CAPA_STATS_CHI2_H

/* P(X >= x) for X chi-squared with df degrees of freedom: the regularized
 * upper incomplete gamma Q(df/2, x/2), by its series below a + 1 and its
 * continued fraction above (Numerical Recipes' split); 1 for x <= 0 or
 * df < 1. Relative accuracy about 1e-14. */
double stats_chi2_upper(double x, int df);

#endif
