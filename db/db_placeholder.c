/* placeholder, replaced by the module */ typedef int db_placeholder_t;
