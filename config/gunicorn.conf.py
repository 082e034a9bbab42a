"""gunicorn settings for the pbem web app:

    gunicorn -c "$(python -m pbem.resources)/config/gunicorn.conf.py" -w 4 \
        -b 0.0.0.0:8000 'pbem.web.app:create_app()'

(`python -m pbem.resources` prints where the shipped data lives: the checkout, or
pbem/_data/ in an installed wheel.)

The access log hides the secret part of every address (a seat's personal link, a
sign-in link, a feed, a new game's key: the app's routes declare which) and of secret
query parameters, and any Authorization or Cookie header, whatever access_log_format
asks for. gunicorn's control socket
(gunicornc) is the instance folder's gunicorn.ctl: gunicorn's own default is one path
per user, which a second server takes over from the first."""

from pbem.config import instance_folder

logger_class = "pbem.web.redact.GunicornLogger"
accesslog = "-"
control_socket = str(instance_folder() / "gunicorn.ctl")
