from django.shortcuts import render

from challenges import days


def home(request):
    return render(request, "frontend/home.html", {"today": days.today()})
