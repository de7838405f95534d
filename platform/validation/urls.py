from django.urls import path

from validation import views

app_name = "validation"
urlpatterns = [
    path("", views.home, name="home"),
    path("batches/<int:pk>/", views.batch_detail, name="batch"),
    path("batches/<int:pk>/export.zip", views.batch_export_download, name="export"),
    path("batches/<int:pk>/annotate/", views.annotate_start, name="annotate"),
    path("assignments/<int:pk>/", views.assignment_page, name="assignment"),
]
