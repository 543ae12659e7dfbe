FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
# OCR of scanned PDFs (the ocr queue): Tesseract with English and Simplified Chinese, Ghostscript.
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
       tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim ghostscript \
    && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml constraints.txt ./
COPY reviewapp ./reviewapp
RUN pip install --no-cache-dir -c constraints.txt .
COPY . .
EXPOSE 8000
CMD ["uvicorn", "reviewapp.asgi:application", "--host", "0.0.0.0", "--port", "8000"]
