"""A person's own settings page: the time zone due times are shown in."""
