from django.db import migrations, models
from django.db.models import F, Min, OuterRef, Subquery
from django.db.models.functions import Coalesce


def backfill(apps, schema_editor):
    """Existing firings: their passage's current state and length; the first of each passage."""
    RuleFiring = apps.get_model("reviews", "RuleFiring")
    Passage = apps.get_model("contracts", "Passage")
    passage = Passage.objects.filter(pk=OuterRef("passage_id"))
    RuleFiring.objects.update(
        passage_state=Coalesce(Subquery(passage.values("state")[:1]), models.Value("")),
        passage_chars=Subquery(passage.annotate(chars=F("end") - F("start")).values("chars")[:1]),
    )
    firsts = RuleFiring.objects.values("passage_id").annotate(first=Min("pk")).values("first")
    RuleFiring.objects.filter(pk__in=Subquery(firsts)).update(passage_first=True)


class Migration(migrations.Migration):
    dependencies = [
        ("contracts", "0002_passage_report_index"),
        ("reviews", "0002_review_report_fields"),
    ]

    operations = [
        migrations.AddField(
            model_name="rulefiring",
            name="passage_chars",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="rulefiring",
            name="passage_first",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="rulefiring",
            name="passage_state",
            field=models.CharField(blank=True, default="", max_length=24),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
