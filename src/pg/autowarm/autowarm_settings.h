/*
 * autowarm_settings.h — the cachectl.autowarm* settings (all SIGHUP).
 */
#ifndef PG_CACHECTL_AUTOWARM_SETTINGS_H
#define PG_CACHECTL_AUTOWARM_SETTINGS_H

extern bool cachectl_autowarm_setting;
extern int	cachectl_autowarm_interval_setting;	/* seconds, 0: never on a timer */
extern char *cachectl_autowarm_label_setting;
extern double cachectl_autowarm_max_mb_per_sec_setting;	/* 0: no limit */
extern double cachectl_autowarm_max_share_setting;
extern bool cachectl_autowarm_follow_setting;
extern char *cachectl_autowarm_role_setting;	/* empty: the bootstrap superuser */

extern void autowarm_define_settings(void);

#endif							/* PG_CACHECTL_AUTOWARM_SETTINGS_H */
