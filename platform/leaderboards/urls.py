from django.urls import path

from leaderboards import views

urlpatterns = [path("<slug:slug>/leaderboard/<str:phase>/", views.leaderboard, name="leaderboard")]
