/*
 * advice_settings.h — cachectl.track_advice and cachectl.advice_sample_blocks.
 */
#ifndef PG_CACHECTL_ADVICE_SETTINGS_H
#define PG_CACHECTL_ADVICE_SETTINGS_H

extern bool cachectl_track_advice_setting;
extern int	cachectl_advice_sample_blocks_setting;

/* Defines them; the size of the sample only when preloading (it sizes memory). */
extern void advice_define_settings(bool preloading);

#endif							/* PG_CACHECTL_ADVICE_SETTINGS_H */
