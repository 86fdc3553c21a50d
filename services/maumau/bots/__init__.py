"""The AI-opponent service: bots that fill seats and give hints."""
