FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml constraints.txt ./
COPY reviewapp ./reviewapp
RUN pip install --no-cache-dir -c constraints.txt .
COPY . .
EXPOSE 8000
CMD ["uvicorn", "reviewapp.asgi:application", "--host", "0.0.0.0", "--port", "8000"]
