"""Two-factor sign-in: an authenticator app (TOTP) and single-use recovery codes, on django-otp.

django-otp keeps the devices, checks codes (with its own throttle) and marks a session verified
(``request.user.is_verified()``); what is ours is the rule of who must use it, the pages, the
enforcement until a session is verified, counting wrong codes in django-axes like wrong
passwords, and the audit events.
"""
