/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * svg.h - the few plots the HTML report needs, as inline SVG text.
 */
#ifndef NP_SVG_H
#define NP_SVG_H

#include <stdbool.h>

#include "bench_util.h"

typedef struct np_svg_series {
	const char *name;
	unsigned n;
	const double *x;
	const double *y;
} np_svg_series_t;

/* Append s with &, <, >, " escaped. */
void np_xml_escape(np_sb_t *b, const char *s);

/* Line plot; logx uses a base-2 axis (message sizes), points with x <= 0
 * are left out on a log axis. */
void np_svg_lines(np_sb_t *b, const char *title, const char *xlabel, const char *ylabel,
                  bool logx, bool logy, const np_svg_series_t *s, unsigned ns);
/* Vertical bars with value labels; ref > 0 draws a dashed reference line
 * (e.g. ideal efficiency 1.0). */
void np_svg_bars(np_sb_t *b, const char *title, const char *ylabel, const char *const *labels,
                 const double *values, unsigned n, double ref, const char *reflabel);
/* One bar per node, in the given order: blue, red for a node that stands
 * out (state 1), and "failed" written in place of the bar of a node that
 * failed (state 2, its value unused); a dashed line at ref (the median of
 * the nodes) and a dotted one at limit, labelled limlabel (NAN: none).
 * With many nodes only every k-th node is named. */
void np_svg_nodes(np_sb_t *b, const char *title, const char *ylabel, const char *const *labels,
                  const double *values, const int *state, unsigned n, double ref, const char *reflabel,
                  double limit, const char *limlabel);
/* A figure over time: x in seconds since the epoch (axis in UTC dates),
 * y from 0; nmarks points (mx, my) ringed in red (regressions). */
void np_svg_timeline(np_sb_t *b, const char *title, const char *ylabel, const np_svg_series_t *s, unsigned ns,
                     const double *mx, const double *my, unsigned nmarks);
/* Matrix of ny rows x nx columns (row-major); NaN cells are grey. */
void np_svg_heatmap(np_sb_t *b, const char *title, const char *xlabel, const char *ylabel,
                    const char *const *xl, unsigned nx, const char *const *yl, unsigned ny,
                    const double *v);

#endif /* NP_SVG_H */
