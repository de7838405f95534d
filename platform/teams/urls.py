from django.urls import path

from teams import views

urlpatterns = [
    path("c/<slug:slug>/team/", views.team_page, name="team"),
    path("teams/join/<str:code>/", views.team_join_page, name="team_join"),
]
