/* placeholder, replaced by the module */ typedef int sieve_placeholder_t;
