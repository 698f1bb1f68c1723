dist_man_MANS += man/symvtune.1
