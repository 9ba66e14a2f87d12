/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * svg.c - a small SVG writer: line plots, bar charts and a heatmap, with
 * axes and labels, so that a report opens anywhere with no network and no
 * plotting package.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tables/svg.h"

#define W 640
#define H 360
#define ML 78   /* margins: room for tick labels */
#define MR 150  /* legend */
#define MT 36
#define MB 56

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                       "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22" };

void np_xml_escape(np_sb_t *b, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': np_sb_add(b, "&amp;"); break;
		case '<': np_sb_add(b, "&lt;"); break;
		case '>': np_sb_add(b, "&gt;"); break;
		case '"': np_sb_add(b, "&quot;"); break;
		default:
			/* XML has no control characters but these three */
			if (np_control_len(s, "\t\n\r")) {
				np_sb_printf(b, "\\x%02x", (unsigned char)*s);
				if (np_control_len(s, "\t\n\r") == 2)
					np_sb_printf(b, "\\x%02x", (unsigned char)*++s);
			} else {
				np_sb_addn(b, s, 1);
			}
		}
	}
}

static void text(np_sb_t *b, double x, double y, const char *anchor, const char *extra, const char *s)
{
	np_sb_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" %s>", x, y, anchor, extra ? extra : "");
	np_xml_escape(b, s);
	np_sb_add(b, "</text>\n");
}

/* The width of a plot with a legend of these series: wider than W when a
 * name would not fit in MR (about 7 px per character at 11 px, an upper
 * bound for sans-serif), so that no legend is cut off. */
static int legend_width(const np_svg_series_t *s, unsigned ns)
{
	size_t most = 0;
	unsigned i;
	int w;

	for (i = 0; i < ns; i++)
		if (s[i].name && strlen(s[i].name) > most)
			most = strlen(s[i].name);
	w = (W - MR) + 26 + (int)(most > 200 ? 200 : most) * 7 + 8;
	return w > W ? w : W;
}

static void header_w(np_sb_t *b, int width, const char *title, const char *xlabel, const char *ylabel)
{
	np_sb_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
	             "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\" role=\"img\">\n",
	             width, H, width, H);
	np_sb_add(b, "<title>");
	np_xml_escape(b, title);
	np_sb_add(b, "</title>\n");
	np_sb_printf(b, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width, H);
	text(b, width / 2.0, 20, "middle", "font-size=\"14\" font-weight=\"bold\"", title);
	if (xlabel)
		text(b, ML + (W - ML - MR) / 2.0, H - 12, "middle", NULL, xlabel);
	if (ylabel) {
		char tr[96];
		snprintf(tr, sizeof(tr), "transform=\"rotate(-90 16 %.1f)\"", MT + (H - MT - MB) / 2.0);
		text(b, 16, MT + (H - MT - MB) / 2.0, "middle", tr, ylabel);
	}
}

static void header(np_sb_t *b, const char *title, const char *xlabel, const char *ylabel)
{
	header_w(b, W, title, xlabel, ylabel);
}

/* A "nice" step for about n ticks over [lo, hi]. */
static double nice_step(double lo, double hi, int n)
{
	double raw = (hi - lo) / n, mag, f;

	if (raw <= 0)
		return 1;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

static void fmt_tick(char *buf, size_t n, double v)
{
	double a = fabs(v);

	if (a >= 1e9)
		snprintf(buf, n, "%gG", v / 1e9);
	else if (a >= 1e6)
		snprintf(buf, n, "%gM", v / 1e6);
	else if (a >= 1e4)
		snprintf(buf, n, "%gk", v / 1e3);
	else
		snprintf(buf, n, "%g", v);
}

static void fmt_bytes(char *buf, size_t n, double v)
{
	if (v >= 1048576)
		snprintf(buf, n, "%gM", v / 1048576);
	else if (v >= 1024)
		snprintf(buf, n, "%gK", v / 1024);
	else
		snprintf(buf, n, "%g", v);
}

/* What a plot with nothing to draw shows, and the end of its SVG. */
static void no_data(np_sb_t *b)
{
	text(b, W / 2.0, H / 2.0, "middle", NULL, "no data");
	np_sb_add(b, "</svg>\n");
}

/* The y grid lines and their labels from ymin to ymax, every step, over a
 * plot area pw x ph; logy: t is log10 of the figure. */
static void y_grid(np_sb_t *b, double pw, double ph, double ymin, double ymax, double step, bool logy)
{
	char lab[32];
	double t;

	for (t = ymin; t <= ymax + step / 1000; t += step) {
		double y = MT + ph - (t - ymin) / (ymax - ymin) * ph;
		np_sb_printf(b, "<line x1=\"%d\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n", ML,
		             ML + pw, y, y);
		fmt_tick(lab, sizeof(lab), logy ? pow(10, t) : t);
		text(b, ML - 6, y + 4, "end", NULL, lab);
	}
}

/* The frame of a bar chart from 0 to a round *ymax above the highest bar;
 * false (and the SVG closed) when there is nothing to draw. */
static bool bar_frame(np_sb_t *b, const char *title, const char *ylabel, unsigned n, double *ymax, double pw,
                      double ph)
{
	double step;

	header(b, title, NULL, ylabel);
	if (n == 0 || *ymax <= 0) {
		no_data(b);
		return false;
	}
	step = nice_step(0, *ymax, 5);
	*ymax = ceil(*ymax * 1.05 / step) * step;
	y_grid(b, pw, ph, 0, *ymax, step, false);
	return true;
}

/* A point a plot can place: finite, and positive on a log axis. */
static bool plottable(bool logx, bool logy, double x, double y)
{
	return !((logx && x <= 0) || (logy && y <= 0) || !isfinite(x) || !isfinite(y));
}

void np_svg_lines(np_sb_t *b, const char *title, const char *xlabel, const char *ylabel,
                  bool logx, bool logy, const np_svg_series_t *s, unsigned ns)
{
	double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
	double pw = W - ML - MR, ph = H - MT - MB, t, step;
	unsigned i, k;
	char lab[32];

	for (i = 0; i < ns; i++)
		for (k = 0; k < s[i].n; k++) {
			double x = s[i].x[k], y = s[i].y[k];
			if (!plottable(logx, logy, x, y))
				continue;
			x = logx ? log2(x) : x;
			y = logy ? log10(y) : y;
			if (x < xmin) xmin = x;
			if (x > xmax) xmax = x;
			if (y < ymin) ymin = y;
			if (y > ymax) ymax = y;
		}
	header_w(b, legend_width(s, ns), title, xlabel, ylabel);
	if (!isfinite(xmin)) {
		no_data(b);
		return;
	}
	if (!logy && ymin > 0)
		ymin = 0;
	if (logy) {
		ymin = floor(ymin);
		ymax = ceil(ymax);
	}
	if (xmax == xmin)
		xmax = xmin + 1;
	if (ymax == ymin)
		ymax = ymin + 1;
	if (!logy) {
		step = nice_step(ymin, ymax, 5);
		ymax = ceil(ymax / step) * step;
	}
#define PX(x) (ML + ((x) - xmin) / (xmax - xmin) * pw)
#define PY(y) (MT + ph - ((y) - ymin) / (ymax - ymin) * ph)
	np_sb_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#999\"/>\n",
	             ML, MT, pw, ph);
	/* y grid */
	y_grid(b, pw, ph, ymin, ymax, logy ? 1 : nice_step(ymin, ymax, 5), logy);
	/* x ticks */
	step = logx ? ceil((xmax - xmin) / 10) : nice_step(xmin, xmax, 6);
	if (step <= 0)
		step = 1;
	for (t = logx ? ceil(xmin) : ceil(xmin / step) * step; t <= xmax + 1e-9; t += step) {
		np_sb_printf(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n", PX(t),
		             PX(t), MT, MT + ph);
		if (logx)
			fmt_bytes(lab, sizeof(lab), pow(2, t));
		else
			fmt_tick(lab, sizeof(lab), t);
		text(b, PX(t), MT + ph + 16, "middle", NULL, lab);
	}
	for (i = 0; i < ns; i++) {
		const char *col = palette[i % 10];
		bool first = true;
		np_sb_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
		for (k = 0; k < s[i].n; k++) {
			double x = s[i].x[k], y = s[i].y[k];
			if (!plottable(logx, logy, x, y))
				continue;
			np_sb_printf(b, "%s%.1f,%.1f", first ? "" : " ", PX(logx ? log2(x) : x), PY(logy ? log10(y) : y));
			first = false;
		}
		np_sb_add(b, "\"/>\n");
		for (k = 0; k < s[i].n; k++) {
			double x = s[i].x[k], y = s[i].y[k];
			if (!plottable(logx, logy, x, y))
				continue;
			np_sb_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
			             PX(logx ? log2(x) : x), PY(logy ? log10(y) : y), col);
		}
		np_sb_printf(b, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"3\" fill=\"%s\"/>\n",
		             ML + pw + 10, MT + 8 + 16.0 * i, col);
		text(b, ML + pw + 26, MT + 12 + 16.0 * i, "start", NULL, s[i].name);
	}
#undef PX
#undef PY
	np_sb_add(b, "</svg>\n");
}

void np_svg_bars(np_sb_t *b, const char *title, const char *ylabel, const char *const *labels,
                 const double *values, unsigned n, double ref, const char *reflabel)
{
	double pw = W - ML - 20, ph = H - MT - MB - 30, ymax = ref > 0 ? ref : 0, bw;
	unsigned i;
	char lab[32];

	for (i = 0; i < n; i++)
		if (isfinite(values[i]) && values[i] > ymax)
			ymax = values[i];
	if (!bar_frame(b, title, ylabel, n, &ymax, pw, ph))
		return;
#define BY(y) (MT + ph - (y) / ymax * ph)
	bw = pw / n;
	for (i = 0; i < n; i++) {
		double w = bw * 0.7 > 90 ? 90 : bw * 0.7, x = ML + i * bw + (bw - w) / 2;
		double v = isfinite(values[i]) ? values[i] : 0;
		char tr[96];
		np_sb_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
		             x, BY(v), w, MT + ph - BY(v), palette[i % 10]);
		np_xml_escape(b, labels[i]);
		np_sb_add(b, "</title></rect>\n");
		if (isfinite(values[i])) {
			np_fmt_num(lab, sizeof(lab), values[i]);
			text(b, x + w / 2, BY(v) - 4, "middle", NULL, lab);
		}
		snprintf(tr, sizeof(tr), "transform=\"rotate(-25 %.1f %.1f)\"", x + w / 2, MT + ph + 14);
		text(b, x + w / 2, MT + ph + 14, "end", tr, labels[i]);
	}
	np_sb_printf(b, "<line x1=\"%d\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", ML, ML + pw,
	             BY(0.0), BY(0.0));
	if (ref > 0) {
		np_sb_printf(b, "<line x1=\"%d\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" "
		             "stroke-dasharray=\"6,4\"/>\n", ML, ML + pw, BY(ref), BY(ref));
		if (reflabel)
			text(b, ML + pw, BY(ref) - 4, "end", "fill=\"#d62728\"", reflabel);
	}
#undef BY
	np_sb_add(b, "</svg>\n");
}

void np_svg_nodes(np_sb_t *b, const char *title, const char *ylabel, const char *const *labels,
                  const double *values, const int *state, unsigned n, double ref, const char *reflabel,
                  double limit, const char *limlabel)
{
	double pw = W - ML - 20, ph = H - MT - MB - 30, ymax = 0, bw;
	unsigned i, every;
	char lab[32];

	for (i = 0; i < n; i++)
		if (state[i] != 2 && isfinite(values[i]) && values[i] > ymax)
			ymax = values[i];
	if (isfinite(ref) && ref > ymax)
		ymax = ref;
	if (isfinite(limit) && limit > ymax)
		ymax = limit;
	if (!bar_frame(b, title, ylabel, n, &ymax, pw, ph))
		return;
#define BY(y) (MT + ph - (y) / ymax * ph)
	bw = pw / n;
	/* about 40 names fit under the axis */
	every = n > 40 ? (n + 39) / 40 : 1;
	for (i = 0; i < n; i++) {
		double w = bw * 0.7 > 40 ? 40 : bw * 0.7, x = ML + i * bw + (bw - w) / 2;
		double v = state[i] != 2 && isfinite(values[i]) ? values[i] : 0;
		char tr[96];
		if (state[i] == 2) {
			snprintf(tr, sizeof(tr), "transform=\"rotate(-90 %.1f %.1f)\" fill=\"#cf222e\"", x + w / 2,
			         BY(0.0) - 4);
			text(b, x + w / 2 + 4, BY(0.0) - 4, "start", tr, "failed");
		} else {
			np_sb_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
			             x, BY(v), w < 1 ? 1 : w, MT + ph - BY(v), state[i] == 1 ? "#d62728" : "#1f77b4");
			np_xml_escape(b, labels[i]);
			np_fmt_num(lab, sizeof(lab), values[i]);
			np_sb_printf(b, ": %s</title></rect>\n", lab);
		}
		if (i % every == 0) {
			snprintf(tr, sizeof(tr), "transform=\"rotate(-45 %.1f %.1f)\"", x + w / 2, MT + ph + 14);
			text(b, x + w / 2, MT + ph + 14, "end", tr, labels[i]);
		}
	}
	np_sb_printf(b, "<line x1=\"%d\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", ML, ML + pw,
	             BY(0.0), BY(0.0));
	if (isfinite(ref) && ref > 0) {
		np_sb_printf(b, "<line x1=\"%d\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#333\" "
		             "stroke-dasharray=\"6,4\"/>\n", ML, ML + pw, BY(ref), BY(ref));
		if (reflabel)
			text(b, ML + pw, BY(ref) - 4, "end", NULL, reflabel);
	}
	if (isfinite(limit) && limit > 0) {
		np_sb_printf(b, "<line x1=\"%d\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" "
		             "stroke-dasharray=\"2,3\"/>\n", ML, ML + pw, BY(limit), BY(limit));
		if (limlabel)
			text(b, ML + 4, BY(limit) - 4, "start", "fill=\"#d62728\"", limlabel);
	}
#undef BY
	np_sb_add(b, "</svg>\n");
}

void np_svg_heatmap(np_sb_t *b, const char *title, const char *xlabel, const char *ylabel,
                    const char *const *xl, unsigned nx, const char *const *yl, unsigned ny, const double *v)
{
	double vmin = INFINITY, vmax = -INFINITY, pw = W - ML - MR, ph = H - MT - MB, cw, ch;
	unsigned i, j;
	char lab[32];

	for (i = 0; i < nx * ny; i++)
		if (isfinite(v[i])) {
			if (v[i] < vmin) vmin = v[i];
			if (v[i] > vmax) vmax = v[i];
		}
	header(b, title, xlabel, ylabel);
	if (nx == 0 || ny == 0) {
		np_sb_add(b, "</svg>\n");
		return;
	}
	cw = pw / nx;
	ch = ph / ny;
	for (j = 0; j < ny; j++) {
		for (i = 0; i < nx; i++) {
			double x = v[j * nx + i], f = vmax > vmin ? (x - vmin) / (vmax - vmin) : 1;
			char col[16];
			if (isfinite(x)) {
				/* white (low) to dark blue (high) */
				int r = (int)(235 - 200 * f), g = (int)(240 - 150 * f), bl = (int)(250 - 70 * f);
				snprintf(col, sizeof(col), "#%02x%02x%02x", r, g, bl);
			} else {
				snprintf(col, sizeof(col), "#cccccc");
			}
			np_sb_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
			             "stroke=\"#fff\"/>\n", ML + i * cw, MT + j * ch, cw, ch, col);
			if (isfinite(x)) {
				np_fmt_num(lab, sizeof(lab), x);
				text(b, ML + i * cw + cw / 2, MT + j * ch + ch / 2 + 4, "middle",
				     f > 0.6 ? "fill=\"#ffffff\"" : NULL, lab);
			} else {
				/* grey alone reads as a value; say what it is */
				text(b, ML + i * cw + cw / 2, MT + j * ch + ch / 2 + 4, "middle", NULL, "not measured");
			}
		}
		text(b, ML - 6, MT + j * ch + ch / 2 + 4, "end", NULL, yl[j]);
	}
	for (i = 0; i < nx; i++)
		text(b, ML + i * cw + cw / 2, MT + ph + 16, "middle", NULL, xl[i]);
	np_sb_add(b, "</svg>\n");
}

/* Date ticks: days when the span is several days, else hours. */
static void fmt_date(char *buf, size_t n, double t, double span)
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(buf, n, span > 3 * 86400 ? "%Y-%m-%d" : "%m-%d %H:%M", &tm);
}

void np_svg_timeline(np_sb_t *b, const char *title, const char *ylabel, const np_svg_series_t *s, unsigned ns,
                     const double *mx, const double *my, unsigned nmarks)
{
	double xmin = INFINITY, xmax = -INFINITY, ymin = 0, ymax = -INFINITY;
	double pw = W - ML - MR, ph = H - MT - MB, step;
	unsigned i, k;
	char lab[32];

	for (i = 0; i < ns; i++)
		for (k = 0; k < s[i].n; k++) {
			double x = s[i].x[k], y = s[i].y[k];
			if (!isfinite(x) || !isfinite(y))
				continue;
			if (x < xmin) xmin = x;
			if (x > xmax) xmax = x;
			if (y < ymin) ymin = y;
			if (y > ymax) ymax = y;
		}
	header_w(b, legend_width(s, ns), title, "date (UTC)", ylabel);
	if (!isfinite(xmin)) {
		no_data(b);
		return;
	}
	/* one run: a point in the middle of an hour */
	if (xmax == xmin) {
		xmin -= 1800;
		xmax += 1800;
	}
	if (ymax <= ymin)
		ymax = ymin + 1;
	step = nice_step(ymin, ymax, 5);
	ymax = ceil(ymax * 1.05 / step) * step;
#define PX(x) (ML + ((x) - xmin) / (xmax - xmin) * pw)
#define PY(y) (MT + ph - ((y) - ymin) / (ymax - ymin) * ph)
	np_sb_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#999\"/>\n",
	             ML, MT, pw, ph);
	y_grid(b, pw, ph, ymin, ymax, step, false);
	for (k = 0; k <= 4; k++) {
		double x = xmin + (xmax - xmin) * k / 4;
		np_sb_printf(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n", PX(x),
		             PX(x), MT, MT + ph);
		fmt_date(lab, sizeof(lab), x, xmax - xmin);
		text(b, PX(x), MT + ph + 16, "middle", NULL, lab);
	}
	for (i = 0; i < ns; i++) {
		const char *col = palette[i % 10];
		bool first = true;
		np_sb_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
		for (k = 0; k < s[i].n; k++)
			if (isfinite(s[i].x[k]) && isfinite(s[i].y[k])) {
				np_sb_printf(b, "%s%.1f,%.1f", first ? "" : " ", PX(s[i].x[k]), PY(s[i].y[k]));
				first = false;
			}
		np_sb_add(b, "\"/>\n");
		for (k = 0; k < s[i].n; k++)
			if (isfinite(s[i].x[k]) && isfinite(s[i].y[k]))
				np_sb_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n", PX(s[i].x[k]),
				             PY(s[i].y[k]), col);
		np_sb_printf(b, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"3\" fill=\"%s\"/>\n",
		             ML + pw + 10, MT + 8 + 16.0 * i, col);
		text(b, ML + pw + 26, MT + 12 + 16.0 * i, "start", NULL, s[i].name);
	}
	/* regressions: a red ring around the point */
	for (k = 0; k < nmarks; k++)
		if (isfinite(mx[k]) && isfinite(my[k]))
			np_sb_printf(b, "<circle class=\"regression\" cx=\"%.1f\" cy=\"%.1f\" r=\"7\" fill=\"none\" "
			             "stroke=\"#d62728\" stroke-width=\"2\"><title>regression</title></circle>\n",
			             PX(mx[k]), PY(my[k]));
#undef PX
#undef PY
	np_sb_add(b, "</svg>\n");
}
