FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY config ./config
COPY games ./games
COPY bots ./bots
COPY tournaments ./tournaments
COPY lib ./lib
COPY manage.py ./
COPY docs ./docs
RUN pip install --no-cache-dir . && python manage.py collectstatic --noinput
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--config", "config/gunicorn.conf.py"]
