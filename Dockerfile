FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
# OCR of scanned PDFs (the ocr queue): Tesseract with English and Simplified Chinese, Ghostscript.
# Legacy Word and WPS files are converted to DOCX by LibreOffice Writer (headless).
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
       tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim ghostscript libreoffice-writer-nogui \
    && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml constraints.txt ./
COPY reviewapp ./reviewapp
RUN pip install --no-cache-dir -c constraints.txt .
COPY . .
# The processes run as a user of their own, not root: it owns only what they write (var/ for the
# collected static files, the media and audit-checkpoint volumes, created here so that Docker
# gives new named volumes this owner).
RUN useradd --create-home --uid 10001 --user-group clausewise \
    && mkdir -p /app/var /data/media /checkpoints \
    && chown -R clausewise:clausewise /app/var /data/media /checkpoints
USER clausewise
EXPOSE 8000
CMD ["uvicorn", "reviewapp.asgi:application", "--host", "0.0.0.0", "--port", "8000"]
