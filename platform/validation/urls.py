from django.urls import path

from validation import views

app_name = "validation"
urlpatterns = [
    path("", views.home, name="home"),
    path("batches/<int:pk>/", views.batch_detail, name="batch"),
    path("batches/<int:pk>/annotators/", views.batch_add_annotators, name="add_annotators"),
    path("batches/<int:pk>/release/", views.batch_release, name="release"),
    path("batches/<int:pk>/settings/", views.batch_settings, name="settings"),
    path("batches/<int:pk>/export.zip", views.batch_export_download, name="export"),
    path("batches/<int:pk>/annotate/", views.annotate_start, name="annotate"),
    path("assignments/<int:pk>/", views.assignment_page, name="assignment"),
]
