/* placeholder, replaced by the module */ typedef int dspline_placeholder_t;
