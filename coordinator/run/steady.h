/* SPDX-License-Identifier: MIT */
/*
 * Steady state as the SNIA Solid State Storage Performance Test Specification defines
 * it: over a measurement window of consecutive rounds (5), a tracking variable is steady
 * when, inclusive,
 *   max - min                  <= 0.20 x the window average   (data excursion)
 *   |slope| x (rounds - 1)     <= 0.10 x the window average   (slope excursion)
 * with slope the least-squares fit of the values against the round number. Both tests
 * are computed in a form that is exact for integer values (no division before compare).
 */
#ifndef RB_STEADY_H
#define RB_STEADY_H

#include <stdbool.h>
#include <stddef.h>

#define RB_STEADY_WINDOW 5

struct rb_steady {
	double avg, min, max, slope; /* slope: per round */
	bool range_ok, slope_ok, steady;
};

/* Judges the n >= 2 values of one window. */
void rb_steady_window(const double *y, size_t n, struct rb_steady *out);
/*
 * Over rounds y[0..nrounds), the first round (0-based) that closes a steady window of
 * `window` rounds, or -1; out holds that window's figures (or the last window's).
 */
long rb_steady_find(const double *y, size_t nrounds, size_t window, struct rb_steady *out);

#endif
