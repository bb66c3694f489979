/*
 * advice_sampler.h — registering the sizing advice's sampler at server start.
 */
#ifndef PG_CACHECTL_ADVICE_SAMPLER_H
#define PG_CACHECTL_ADVICE_SAMPLER_H

extern void advice_register_sampler(void);

#endif							/* PG_CACHECTL_ADVICE_SAMPLER_H */
